import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Compact HMAC-SHA256 tokens for media access: `base64url(json).base64url(mac)`.
 * Each purpose derives its own key, so a listener token can never pass as a station token.
 */
export class TokenSigner<T extends object> {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly purpose: string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'radio-broadcaster', purpose, 32));
  }

  sign(claims: T, ttlSeconds: number, now = Date.now()): { token: string; expiresAt: string } {
    const exp = Math.floor(now / 1000) + ttlSeconds;
    const body = Buffer.from(JSON.stringify({ ...claims, p: this.purpose, exp })).toString(
      'base64url',
    );
    return { token: `${body}.${this.mac(body)}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** The claims, or a reason it is refused. */
  verify(
    token: string,
    now = Date.now(),
  ): { ok: true; claims: T } | { ok: false; reason: 'malformed' | 'expired' } {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 2048) return { ok: false, reason: 'malformed' };
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, reason: 'malformed' };
    let parsed: T & { p?: string; exp?: number };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & {
        p?: string;
        exp?: number;
      };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (parsed.p !== this.purpose || typeof parsed.exp !== 'number')
      return { ok: false, reason: 'malformed' };
    if (parsed.exp * 1000 <= now) return { ok: false, reason: 'expired' };
    return { ok: true, claims: parsed };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/** Lets the owner publish (WHIP) to exactly one station. */
export interface StationTokenClaims {
  stationId: string;
  userId: string;
  /** The sign-in session it was issued under: revoking that session revokes the token. */
  sid: string;
  /** Token id: a reconnect with the same token replaces its own earlier publish. */
  tid: string;
}

/**
 * How a listener was let in: `join` (the join call, allow-list passed: our player's HTTP fallback),
 * `owner` (the studio's signed links for VLC and radio apps). Private stations add the ways they
 * admit (an invite, the password, an invited account), each with its `gid`.
 */
export type ListenVia = 'join' | 'owner' | 'invite' | 'password' | 'account';

/**
 * A signed listening link (`/listen/{user}/{slug}.ogg?t=…`): one listener on one station's HTTP
 * stream until it expires. One scheme for every way in: the player's fallback, playlists for VLC
 * and radio apps, and private stations' grants.
 */
export interface ListenGrantClaims {
  stationId: string;
  /**
   * Random listener id, one per join or playlist fetch: what a listener slot and the stats know
   * the listener by, and what a grant's use limit counts (distinct listeners).
   */
  lid: string;
  via: ListenVia;
  /** The grant this link derives from (an invite's id…): revoking it ends the link. Absent for `join`. */
  gid?: string;
  /** The `Origin` the join came from, null for none (non-browser, or a studio link). */
  origin: string | null;
}

/** Lets one page origin open one listening session on one station. */
export interface ListenerTokenClaims {
  stationId: string;
  /** The `Origin` the join came from, or null for same-site / non-browser joins. */
  origin: string | null;
  /** Token id: each join gets its own, so one listener's token never ends another's session. */
  tid: string;
  /** A private station's admission behind this join (how, what revokes it, the listener id). */
  grant?: { via: ListenVia; gid: string; lid: string };
}
