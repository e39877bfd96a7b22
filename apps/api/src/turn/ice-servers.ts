import { createHmac, randomBytes } from 'node:crypto';
import type { IceServer } from '@radiobroadcaster/contracts';

/** TURN relays with the REST shared-secret scheme (coturn `use-auth-secret`). */
export interface TurnConfig {
  /** `turn:` / `turns:` URLs of the relays (all share the secret). */
  urls: string[];
  secret: string;
  ttlSeconds: number;
}

/** `turn:host[:port][?transport=udp|tcp]` or `turns:…`; what RFC 7065 allows, minus IPv6 zones. */
export const TURN_URL =
  /^turns?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\?transport=(udp|tcp))?$/;

/**
 * Credentials for one caller, valid for `ttlSeconds`: username `{expiry}:{caller}`, password
 * base64(HMAC-SHA1(secret, username)). The relay recomputes the password from its copy of the secret
 * and refuses the username once its expiry has passed.
 */
export function mintTurnCredentials(
  turn: TurnConfig,
  caller: string,
  now: number = Date.now(),
): IceServer {
  const expiry = Math.floor(now / 1000) + turn.ttlSeconds;
  // ':' separates the expiry; keep the caller part to safe characters for the relay's logs
  const username = `${expiry}:${caller.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64) || 'anon'}`;
  const credential = createHmac('sha1', turn.secret).update(username).digest('base64');
  return { urls: [...turn.urls], username, credential };
}

/** An opaque per-session name for the relay's logs (never a user id). */
export function callerId(kind: 'listener' | 'publisher'): string {
  return `${kind === 'listener' ? 'l' : 'p'}-${randomBytes(6).toString('hex')}`;
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * RFC 9725 section 4.6: one `Link` value per URL,
 * `<turn:host?transport=udp>; rel="ice-server"; username="…"; credential="…"; credential-type="password"`.
 */
export function iceServerLinks(servers: IceServer[]): string[] {
  const links: string[] = [];
  for (const s of servers) {
    for (const url of Array.isArray(s.urls) ? s.urls : [s.urls]) {
      let link = `<${url}>; rel="ice-server"`;
      if (s.username !== undefined) link += `; username=${quoted(s.username)}`;
      if (s.credential !== undefined) {
        link += `; credential=${quoted(s.credential)}; credential-type="password"`;
      }
      links.push(link);
    }
  }
  return links;
}
