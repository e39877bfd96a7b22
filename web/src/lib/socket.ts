import {
  SOCKET_EVENTS,
  type StationAccessPush,
  type StationUpdatePush,
} from '@radiobroadcaster/contracts';
import { toast } from 'sonner';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { io, type Socket } from 'socket.io-client';
import { applyStationPush, stationKeys } from '../queries/station.queries';

interface ServerToClient {
  [SOCKET_EVENTS.update]: (push: StationUpdatePush) => void;
  [SOCKET_EVENTS.deleted]: (push: { id: string }) => void;
  [SOCKET_EVENTS.access]: (push: StationAccessPush) => void;
}
/** The join acknowledgement carries the station's current state. */
type JoinAck = { ok: true; station?: StationUpdatePush } | { ok: false; error?: string };

interface ClientToServer {
  [SOCKET_EVENTS.join]: (stationId: string, ack: (res: JoinAck) => void) => void;
  [SOCKET_EVENTS.leave]: (stationId: string) => void;
}

let socket: Socket<ServerToClient, ClientToServer> | undefined;
const rooms = new Map<string, number>();
let onJoined: ((push: StationUpdatePush) => void) | undefined;

function joinRoom(s: Socket<ServerToClient, ClientToServer>, stationId: string): void {
  s.emit(SOCKET_EVENTS.join, stationId, (res) => {
    if (res?.ok && res.station) onJoined?.(res.station);
  });
}

/** One connection per tab, opened on first use, at the same origin (path `/socket.io`). */
export function getSocket(): Socket<ServerToClient, ClientToServer> {
  if (!socket) {
    socket = io({ withCredentials: true, transports: ['websocket', 'polling'] });
    // Rooms are per connection: join again after every reconnect.
    socket.on('connect', () => {
      for (const id of rooms.keys()) if (socket) joinRoom(socket, id);
    });
  }
  return socket;
}

/** Joins room `station:{id}` while mounted and applies `station:update` pushes to the cache. */
export function useStationUpdates(stationId: string | undefined, enabled = true): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!stationId || !enabled) return;
    const s = getSocket();
    const onUpdate = (push: StationUpdatePush) => {
      if (push.id === stationId) applyStationPush(queryClient, push);
    };
    // A deleted station answers 404 from now on: ask at once rather than at the next poll.
    const onDeleted = (push: { id: string }) => {
      if (push.id === stationId)
        void queryClient.refetchQueries({ queryKey: stationKeys.detail(stationId) });
    };
    onJoined = (push) => applyStationPush(queryClient, push);
    // The owner made the station private: listeners without access hear it out, then stop.
    const onAccess = (push: StationAccessPush) => {
      if (push.id !== stationId) return;
      toast.warning(
        push.endsInSeconds > 0
          ? `This station is now private: listening ends in ${push.endsInSeconds} seconds unless you have an invite or its password.`
          : 'Your access to this private station ended.',
        { id: `access-${stationId}`, duration: 10_000 },
      );
    };
    s.on(SOCKET_EVENTS.update, onUpdate);
    s.on(SOCKET_EVENTS.deleted, onDeleted);
    s.on(SOCKET_EVENTS.access, onAccess);
    rooms.set(stationId, (rooms.get(stationId) ?? 0) + 1);
    if (s.connected) joinRoom(s, stationId);
    return () => {
      s.off(SOCKET_EVENTS.update, onUpdate);
      s.off(SOCKET_EVENTS.deleted, onDeleted);
      s.off(SOCKET_EVENTS.access, onAccess);
      const n = (rooms.get(stationId) ?? 1) - 1;
      if (n > 0) rooms.set(stationId, n);
      else {
        rooms.delete(stationId);
        if (s.connected) s.emit(SOCKET_EVENTS.leave, stationId);
      }
    };
  }, [stationId, enabled, queryClient]);
}
