/**
 * Icecast sources on the API's own port. They speak a dialect Node's HTTP server cannot take:
 * `SOURCE` (Icecast < 2.4) and `PUT` (2.4+, as ffmpeg and libshout send it) both stream the audio
 * as the request body with neither Content-Length nor chunked encoding, for hours. So the first
 * bytes of each new connection are looked at: a source request is taken over here (its head parsed,
 * the socket handed to the ingest), anything else goes to the HTTP server untouched.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A source's request line and headers (names lower-cased). */
export interface SourceRequest {
  method: 'SOURCE' | 'PUT';
  /** The request target as sent (path and query). */
  target: string;
  version: string;
  headers: Record<string, string>;
}

export type SourceHandler = (socket: Socket, req: SourceRequest, body: Buffer) => void;

const MAX_HEAD_BYTES = 16 * 1024;
/** A source that connects and does not finish its request head within this is dropped. */
const HEAD_TIMEOUT_MS = 30_000;

/** Whether a request starting with `head` is ours; null while too few bytes arrived to tell. */
function isSourceStart(head: Buffer, pathPrefix: string): boolean | null {
  const candidates = ['SOURCE ', `PUT ${pathPrefix}`];
  const text = head.toString('latin1', 0, Math.min(head.length, 64));
  for (const c of candidates) {
    if (text.startsWith(c)) return true;
    if (c.startsWith(text)) return null;
  }
  return false;
}

/** Parses `head` (everything before the blank line); null when it is not a well-formed request. */
export function parseSourceHead(head: string): SourceRequest | null {
  const lines = head.split('\r\n');
  const m = /^(SOURCE|PUT) (\/\S*) (HTTP\/1\.[01]|ICE\/1\.0)$/.exec(lines[0] ?? '');
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method: m[1] as 'SOURCE' | 'PUT', target: m[2]!, version: m[3]!, headers };
}

/**
 * Installs the look at each new connection of `server`: requests `SOURCE …` and `PUT {pathPrefix}…`
 * go to `onSource`, with the bytes that followed their head.
 */
export function installSourceConnections(
  server: Server,
  pathPrefix: string,
  onSource: SourceHandler,
): void {
  const httpListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    let buf: Buffer = Buffer.alloc(0);
    let decided = false;
    const timer = setTimeout(() => socket.destroy(), HEAD_TIMEOUT_MS);
    const toHttp = () => {
      socket.pause();
      if (buf.length) socket.unshift(buf);
      for (const l of httpListeners) l.call(server, socket);
      socket.resume();
    };
    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      if (!decided) {
        const ours = isSourceStart(buf, pathPrefix);
        if (ours === null) return;
        if (!ours) {
          clearTimeout(timer);
          socket.removeListener('data', onData);
          toHttp();
          return;
        }
        decided = true;
      }
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) {
          socket.end('HTTP/1.0 431 Request Header Fields Too Large\r\n\r\n');
          socket.destroy();
        }
        return;
      }
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.pause();
      const req = parseSourceHead(buf.toString('latin1', 0, end));
      if (!req) {
        socket.end('HTTP/1.0 400 Bad Request\r\nConnection: close\r\n\r\n');
        return;
      }
      onSource(socket, req, buf.subarray(end + 4));
    };
    socket.on('data', onData);
    socket.once('close', () => clearTimeout(timer));
    // errors before the HTTP server owns the socket (resets) must not reach the process
    socket.on('error', () => undefined);
  });
}
