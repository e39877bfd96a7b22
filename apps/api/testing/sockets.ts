import { io, type Socket } from 'socket.io-client';

/**
 * A socket.io client connected to the API at `url` (websocket only, no reconnection; `token`
 * signs it in), pushed onto `open` for the spec to close. Rejects when the connection is refused.
 */
export async function connectSocket(url: string, open: Socket[], token?: string): Promise<Socket> {
  const s = io(url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    ...(token ? { auth: { token } } : {}),
  });
  open.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

/** Emits `event` and resolves with the server's acknowledgement (10 s deadline). */
export function emitAck<T>(s: Socket, event: string, body: unknown): Promise<T> {
  return s.timeout(10_000).emitWithAck(event, body) as Promise<T>;
}
