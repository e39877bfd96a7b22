import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { Broadcast, type BroadcastSnapshot } from '../../lib/broadcast';
import { isClientError } from '../../lib/api-error';
import { useStationUpdates } from '../../lib/socket';
import { showErrorToast } from '../../lib/toasts';
import { stationKeys, stationQueries } from '../../queries/station.queries';

const BroadcastContext = createContext<Broadcast | null>(null);

/**
 * Holds the studio's broadcast above the routes: navigating inside the site keeps publishing, the
 * browser asks before a reload or close cuts the station, and a broadcast whose station was ended
 * or deleted elsewhere stops.
 */
export function BroadcastProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [broadcast] = useState(
    () =>
      new Broadcast(
        (id) => void queryClient.invalidateQueries({ queryKey: stationKeys.detail(id) }),
        (err, title) => showErrorToast(err, title),
      ),
  );
  const snap = useSyncExternalStore(broadcast.subscribe, broadcast.snapshot);
  const busy = snap.state !== 'idle';

  useEffect(() => {
    if (!busy) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the dialog only when returnValue is set.
      e.returnValue = '';
    };
    const leave = () => broadcast.leaveOnUnload();
    addEventListener('beforeunload', warn);
    addEventListener('pagehide', leave);
    return () => {
      removeEventListener('beforeunload', warn);
      removeEventListener('pagehide', leave);
    };
  }, [busy, broadcast]);

  return (
    <BroadcastContext.Provider value={broadcast}>
      {busy && snap.station ? (
        <StopWhenGone broadcast={broadcast} stationId={snap.station.id} />
      ) : null}
      {children}
    </BroadcastContext.Provider>
  );
}

/** Ending or deleting the station (here, in another tab, by the API) takes this browser off the air. */
function StopWhenGone({ broadcast, stationId }: { broadcast: Broadcast; stationId: string }) {
  const { data, error } = useQuery(stationQueries.detail(stationId));
  useStationUpdates(stationId);
  const previous = useRef(data?.status);
  useEffect(() => {
    const was = previous.current;
    previous.current = data?.status;
    if (data?.status === 'ended' && was !== undefined && was !== 'ended') {
      void broadcast.stop('The broadcast was ended.');
    }
  }, [data?.status, broadcast]);
  useEffect(() => {
    if (isClientError(error)) void broadcast.stop('This station was deleted.');
  }, [error, broadcast]);
  return null;
}

export function useBroadcastController(): Broadcast {
  const b = useContext(BroadcastContext);
  if (!b) throw new Error('useBroadcast needs <BroadcastProvider>');
  return b;
}

/** The broadcast's current state, re-rendering on changes (not on every level reading). */
export function useBroadcast(): BroadcastSnapshot & { controller: Broadcast } {
  const controller = useBroadcastController();
  const snap = useSyncExternalStore(controller.subscribe, controller.snapshot);
  return { ...snap, controller };
}
