import { isIP, type Socket } from 'node:net';
import type { RelayFormat, RelayKind } from '@radiobroadcaster/contracts';
import { socketHost } from '../common/outbound/outbound-address.js';
import {
  describeOutboundError,
  OutboundRefused,
  type OutboundPolicy,
} from '../common/outbound/outbound-policy.js';

/** Where and how one relay connects (the password decrypted only for the connection). */
export interface RelayTarget {
  kind: RelayKind;
  url: string;
  mount: string;
  username: string;
  password: string;
  format: RelayFormat;
  /** Shown by the target server in its directory and status pages. */
  name: string;
  description: string;
  /** The station's public page. */
  pageUrl: string;
}

/** The target answered but refused the source (wrong password, mount taken, ...). */
export class RelayRefused extends Error {
  override name = 'RelayRefused';
}

const CONTENT_TYPE: Record<RelayFormat, string> = { ogg: 'audio/ogg', mp3: 'audio/mpeg' };
const MAX_REPLY_BYTES = 8192;

/** Our own words for why no connection came: never what the remote server sent. */
async function open(
  policy: OutboundPolicy,
  hostname: string,
  port: number,
  tls: boolean,
  timeoutMs: number,
): Promise<Socket> {
  const host = socketHost(hostname);
  try {
    const socket = await policy.connect({ host, port, tls, timeoutMs });
    socket.setNoDelay(true);
    return socket;
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const where = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    if (code === 'ECONNREFUSED') {
      throw new Error(`${where} refused the connection (is the server running on that port?)`);
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new Error(`the server name ${host} could not be resolved`);
    }
    if (code === 'ETIMEDOUT')
      throw new Error(`no connection to ${where} within ${timeoutMs / 1000} s`);
    throw new Error(`${where}: ${describeOutboundError(err)}`);
  }
}

/** Reads until `done` recognises a complete reply (or the socket ends); leftover bytes are dropped. */
function readReply(
  socket: Socket,
  done: (text: string) => boolean,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (err: Error | null) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      if (err) reject(err);
      else resolve(text);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (done(text) || text.length > MAX_REPLY_BYTES) finish(null);
    };
    const onEnd = () =>
      text ? finish(null) : finish(new Error('the server closed the connection without answering'));
    const onError = (err: Error) => finish(err);
    const timer = setTimeout(
      () => finish(new Error(`the server did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

const headerValue = (v: string) => v.replace(/[\r\n]+/g, ' ').slice(0, 200);

/**
 * Icecast 2 and AzuraCast: `PUT {mount}` with HTTP Basic credentials (Icecast ≥ 2.4, what ffmpeg
 * and libshout send); the body is the stream itself, for as long as the connection lasts.
 */
async function connectIcecast(
  t: RelayTarget,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<Socket> {
  const url = new URL(t.url);
  const tls = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  const base = url.pathname.replace(/\/+$/, '');
  const mount = `${base}/${t.mount.replace(/^\/+/, '')}`;
  const socket = await open(policy, url.hostname, port, tls, timeoutMs);
  const auth = Buffer.from(`${t.username}:${t.password}`).toString('base64');
  socket.write(
    [
      `PUT ${encodeURI(decodeURI(mount))} HTTP/1.1`,
      `Host: ${url.host}`,
      `Authorization: Basic ${auth}`,
      'User-Agent: RadioBroadcaster-relay/1',
      `Content-Type: ${CONTENT_TYPE[t.format]}`,
      'Ice-Public: 0',
      `Ice-Name: ${headerValue(t.name)}`,
      `Ice-Description: ${headerValue(t.description)}`,
      `Ice-Url: ${headerValue(t.pageUrl)}`,
      'Expect: 100-continue',
      '',
      '',
    ].join('\r\n'),
  );
  let reply: string;
  try {
    reply = await readReply(socket, (s) => s.includes('\r\n\r\n'), timeoutMs);
  } catch (err) {
    socket.destroy();
    throw err;
  }
  // Only the status code is used: the reason phrase and body are the remote server's words.
  const status = /^HTTP\/1\.[01] (\d{3})[ \r\n]/.exec(reply);
  const code = status ? Number(status[1]) : 0;
  if (code === 100 || code === 200) return socket;
  socket.destroy();
  if (code === 401) throw new RelayRefused('the server refused the user name or password (401)');
  if (code === 403) {
    throw new RelayRefused('the server refused the source (403); is the mount already in use?');
  }
  if (code === 404) throw new RelayRefused(`the server has no mount ${mount} (404)`);
  throw new RelayRefused(
    code
      ? `unexpected answer from the server (HTTP ${code})`
      : 'unexpected answer from the server (not HTTP)',
  );
}

/**
 * Shoutcast 2 (DNAS 2.x) takes sources in its v1 protocol on the port after the listed one: the
 * password (with `:#{stream id}` for a mount such as `/2`), "OK2", then icy headers and MP3.
 */
async function connectShoutcast(
  t: RelayTarget,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<Socket> {
  const url = new URL(t.url);
  const port = (url.port ? Number(url.port) : 8000) + 1;
  const socket = await open(policy, url.hostname, port, url.protocol === 'https:', timeoutMs);
  const sid = /^\/?(\d+)$/.exec(t.mount)?.[1];
  socket.write(`${t.password}${sid && sid !== '1' ? `:#${sid}` : ''}\r\n`);
  let reply: string;
  try {
    reply = await readReply(socket, (s) => s.includes('\n'), timeoutMs);
  } catch (err) {
    socket.destroy();
    throw err;
  }
  if (!reply.startsWith('OK2')) {
    socket.destroy();
    // Never the answer itself: whatever listens there (not always Shoutcast) wrote it.
    throw new RelayRefused(
      /^invalid password/i.test(reply)
        ? 'the server refused the password'
        : 'unexpected answer from the server (not a Shoutcast source port)',
    );
  }
  socket.write(
    [
      `content-type:${CONTENT_TYPE[t.format]}`,
      `icy-name:${headerValue(t.name)}`,
      `icy-genre:${headerValue(t.description)}`,
      `icy-url:${headerValue(t.pageUrl)}`,
      'icy-pub:0',
      'icy-br:128',
      '',
      '',
    ].join('\r\n'),
  );
  return socket;
}

/** A socket the target accepted as a source; write the stream into it. */
export function connectRelay(
  t: RelayTarget,
  policy: OutboundPolicy,
  timeoutMs = 10_000,
): Promise<Socket> {
  switch (t.kind) {
    case 'icecast':
    case 'azuracast':
      return connectIcecast(t, policy, timeoutMs);
    case 'shoutcast':
      return connectShoutcast(t, policy, timeoutMs);
  }
}

/**
 * Sets the title an MP3 relay's listeners see ("Artist - Track"), as encoders do: Icecast and
 * AzuraCast take `GET /admin/metadata?mode=updinfo` with the source credentials, Shoutcast 2 takes
 * `GET /admin.cgi?mode=updinfo` with the source password. Ogg streams carry their titles in the
 * stream itself, and these servers refuse updates for them.
 */
export async function sendRelayTitle(
  t: RelayTarget,
  song: string,
  policy: OutboundPolicy,
  timeoutMs = 5000,
): Promise<void> {
  const url = new URL(t.url);
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const query = new URLSearchParams({ mode: 'updinfo', song: song.slice(0, 400) });
  const headers: Record<string, string> = { 'User-Agent': 'RadioBroadcaster-relay/1' };
  let path: string;
  if (t.kind === 'shoutcast') {
    const sid = /^\/?(\d+)$/.exec(t.mount)?.[1] ?? '1';
    query.set('sid', sid);
    query.set('pass', t.password);
    path = '/admin.cgi';
  } else {
    query.set('mount', `${url.pathname.replace(/\/+$/, '')}/${t.mount.replace(/^\/+/, '')}`);
    headers.Authorization = `Basic ${Buffer.from(`${t.username}:${t.password}`).toString('base64')}`;
    path = '/admin/metadata';
  }
  // Through the outbound policy like the stream itself; a redirect is an answer, never followed.
  let status: number;
  try {
    ({ status } = await policy.request(`${base}${path}?${query}`, {
      headers,
      timeoutMs,
      maxBodyBytes: 0,
    }));
  } catch (err) {
    throw new Error(describeOutboundError(err));
  }
  if (status < 200 || status >= 300) throw new Error(`the server refused the title (${status})`);
}
