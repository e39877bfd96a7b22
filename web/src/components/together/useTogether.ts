import {
  CHAT_EVENTS,
  type ChatHistoryResponse,
  type ChatMessage,
  type ChatRoomSettings,
  type ChatSendAck,
  type PresenceUpdate,
  type ReactionBurst,
  type ReactionKind,
} from '@radiobroadcaster/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Socket } from 'socket.io-client';
import { apiFetch } from '../../lib/api';
import { grantFor, withGrant } from '../../lib/listen-grant';
import { getSocket } from '../../lib/socket';

export type HelloAck =
  | { ok: true; name: string; kind: 'user' | 'guest'; guestId?: string; guestToken?: string }
  | { ok: false; error: string; message: string };

const GUEST_KEY = 'rb-chat-guest';

/** Everything the room pushes about presence, chat and reactions, kept in React state. */
export function useTogether(stationId: string) {
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [pinned, setPinned] = useState<ChatMessage | null>(null);
  const [settings, setSettings] = useState<ChatRoomSettings | null>(null);
  const [presence, setPresence] = useState<PresenceUpdate | null>(null);
  const [burst, setBurst] = useState<ReactionBurst | null>(null);
  const [me, setMe] = useState<{ name: string; kind: 'user' | 'guest' } | null>(null);
  const [loaded, setLoaded] = useState(false);
  const socketRef = useRef<Socket | null>(null);

  const load = useCallback(async () => {
    const [h, p] = await Promise.all([
      apiFetch<ChatHistoryResponse>(
        withGrant(`/api/stations/${stationId}/chat?limit=100`, grantFor(stationId)),
      ),
      apiFetch<PresenceUpdate>(
        withGrant(`/api/stations/${stationId}/presence`, grantFor(stationId)),
      ),
    ]);
    setMessages(h.messages);
    setPinned(h.pinned);
    setSettings(h.settings);
    setPresence(p);
    setLoaded(true);
  }, [stationId]);

  useEffect(() => {
    const s = getSocket() as unknown as Socket;
    socketRef.current = s;
    const mine = (x: { stationId?: string }) => x.stationId === stationId;
    const onMessage = (m: ChatMessage) => {
      if (mine(m))
        setMessages((list) => (list.some((x) => x.id === m.id) ? list : [...list, m].slice(-200)));
    };
    const onDeleted = ({ id }: { id: string }) => {
      setMessages((list) => list.filter((m) => m.id !== id));
      setPinned((p) => (p?.id === id ? null : p));
    };
    const onCleared = (x: { stationId: string }) => {
      if (mine(x)) {
        setMessages([]);
        setPinned(null);
      }
    };
    const onPinned = (x: { stationId: string; message: ChatMessage | null }) => {
      if (mine(x)) setPinned(x.message);
    };
    const onSettings = (x: ChatRoomSettings) => {
      if (mine(x)) setSettings(x);
    };
    const onPresence = (x: PresenceUpdate) => {
      if (mine(x)) setPresence(x);
    };
    const onBurst = (x: ReactionBurst) => {
      if (mine(x)) setBurst(x);
    };
    // After a reconnect: what was missed, and the guest name again.
    const onConnect = () => {
      void load().catch(() => undefined);
    };
    s.on(CHAT_EVENTS.message, onMessage);
    s.on(CHAT_EVENTS.deleted, onDeleted);
    s.on(CHAT_EVENTS.cleared, onCleared);
    s.on(CHAT_EVENTS.pinned, onPinned);
    s.on(CHAT_EVENTS.settings, onSettings);
    s.on(CHAT_EVENTS.presence, onPresence);
    s.on(CHAT_EVENTS.reactionBurst, onBurst);
    s.on('connect', onConnect);
    void load().catch(() => undefined);
    return () => {
      s.off(CHAT_EVENTS.message, onMessage);
      s.off(CHAT_EVENTS.deleted, onDeleted);
      s.off(CHAT_EVENTS.cleared, onCleared);
      s.off(CHAT_EVENTS.pinned, onPinned);
      s.off(CHAT_EVENTS.settings, onSettings);
      s.off(CHAT_EVENTS.presence, onPresence);
      s.off(CHAT_EVENTS.reactionBurst, onBurst);
      s.off('connect', onConnect);
    };
  }, [stationId, load]);

  const hello = useCallback(
    async (name: string): Promise<HelloAck> => {
      const s = socketRef.current!;
      let guestToken: string | undefined;
      try {
        guestToken = sessionStorage.getItem(GUEST_KEY) ?? undefined;
      } catch {
        // Storage blocked: a new guest id.
      }
      const ack = (await s
        .timeout(10_000)
        .emitWithAck(CHAT_EVENTS.hello, { stationId, name, guestToken })) as HelloAck;
      if (ack.ok) {
        setMe({ name: ack.name, kind: ack.kind });
        if (ack.guestToken)
          try {
            sessionStorage.setItem(GUEST_KEY, ack.guestToken);
          } catch {
            // Fine: the id lasts as long as this page.
          }
      }
      return ack;
    },
    [stationId],
  );

  const send = useCallback(
    async (text: string): Promise<ChatSendAck> => {
      const s = socketRef.current!;
      return (await s
        .timeout(10_000)
        .emitWithAck(CHAT_EVENTS.send, { stationId, text })) as ChatSendAck;
    },
    [stationId],
  );

  const react = useCallback(
    (kind: ReactionKind) => {
      socketRef.current?.emit(CHAT_EVENTS.reactionSend, { stationId, kind });
    },
    [stationId],
  );

  return { messages, pinned, settings, presence, burst, me, setMe, loaded, hello, send, react };
}

/** Tells the room whether this page plays the station (presence shows "listening" or "in chat"). */
export function useReportPlaying(stationId: string, playing: boolean): void {
  useEffect(() => {
    const s = getSocket() as unknown as Socket;
    let cancelled = false;
    // The room join is answered asynchronously: until it is, the server says "join first".
    const tell = async () => {
      for (let i = 0; i < 20 && !cancelled; i++) {
        const ack = (await s
          .timeout(10_000)
          .emitWithAck(CHAT_EVENTS.presenceState, { stationId, playing })
          .catch(() => null)) as { ok: boolean } | null;
        if (ack?.ok) return;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const onConnect = () => void tell();
    void tell();
    s.on('connect', onConnect);
    return () => {
      cancelled = true;
      s.off('connect', onConnect);
    };
  }, [stationId, playing]);
}
