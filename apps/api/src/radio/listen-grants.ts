import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorTag,
  LISTEN_TOKEN_PARAM,
  listenPath,
  type ListenExtension,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { type ListenGrantClaims, type ListenVia, TokenSigner } from '../common/signed-token.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** The station as a listening address needs it. */
export interface ListenStation {
  id: string;
  slug: string;
  broadcaster: { username: string };
}

/** A link's claims once checked, with its expiry in ms. */
export type VerifiedListenGrant = ListenGrantClaims & { exp: number };

export interface SignedListenUrls {
  ogg: string;
  mp3: string;
  m3u: string;
  pls: string;
  /** When the links stop opening new streams. */
  expiresAt: string;
  /** The listener id they carry. */
  lid: string;
  /** The signed token itself: a private station's listening grant (WHEP `Authorization: Bearer`). */
  token: string;
}

/**
 * Signed listening links: `/listen/{user}/{slug}.{ext}?t=TOKEN`, where the token (HMAC, see
 * {@link TokenSigner}) names the station, a random listener id, how the listener got in and when
 * it expires. `/listen` plays a station whose stream URL is private only with one. The player's
 * HTTP fallback gets them from the join, the owner from the studio (for VLC and radio apps), and a
 * playlist fetched with one lists fresh ones (a new listener id each) expiring with it.
 */
@Injectable()
export class ListenGrants {
  private readonly signer: TokenSigner<ListenGrantClaims>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.signer = new TokenSigner(config.authSecret, 'station-listen-url');
  }

  /**
   * Links for a new listener (`lid`, random unless given: a private station's admitted listener
   * keeps theirs) on `station`, valid for `ttlSeconds`, under `base`.
   */
  issue(
    station: ListenStation,
    grant: { via: ListenVia; origin: string | null; gid?: string; lid?: string },
    ttlSeconds: number,
    base: string,
    now = Date.now(),
  ): SignedListenUrls {
    const lid = grant.lid ?? randomUUID();
    const claims: ListenGrantClaims = {
      stationId: station.id,
      lid,
      via: grant.via,
      origin: grant.origin,
    };
    if (grant.gid) claims.gid = grant.gid;
    const { token, expiresAt } = this.signer.sign(claims, ttlSeconds, now);
    const at = (ext: ListenExtension) => signedUrl(base, station, ext, token);
    return {
      ogg: at('ogg'),
      mp3: at('mp3'),
      m3u: at('m3u'),
      pls: at('pls'),
      expiresAt,
      lid,
      token,
    };
  }

  /**
   * Fresh links for the next listener of a playlist fetched with `claims`: same grant, a new
   * listener id, expiring with the playlist's own link.
   */
  reissue(
    station: ListenStation,
    claims: VerifiedListenGrant,
    expiresAt: number,
    base: string,
    now = Date.now(),
  ): SignedListenUrls {
    const ttl = Math.max(1, Math.floor((expiresAt - now) / 1000));
    return this.issue(
      station,
      { via: claims.via, origin: claims.origin, gid: claims.gid },
      ttl,
      base,
      now,
    );
  }

  /**
   * The claims of a link for `stationId`, with its expiry (ms); 403 `LISTEN_LINK_INVALID` when it
   * was altered, is for another station, or has expired.
   */
  verify(token: string, stationId: string, now = Date.now()): VerifiedListenGrant {
    const result = this.signer.verify(token, now);
    if (!result.ok)
      throw new AppError(
        ErrorTag.ListenLinkInvalid,
        result.reason === 'expired'
          ? 'This listening link has expired: open the station again for a new one'
          : 'This listening link is not valid: it was changed or cut short',
      );
    const claims = result.claims as ListenGrantClaims & { exp: number };
    if (claims.stationId !== stationId || typeof claims.lid !== 'string')
      throw new AppError(ErrorTag.ListenLinkInvalid, 'This listening link is for another station');
    return { ...claims, exp: claims.exp * 1000 };
  }
}

function signedUrl(base: string, station: ListenStation, ext: ListenExtension, token: string) {
  const path = listenPath(
    encodeURIComponent(station.broadcaster.username),
    encodeURIComponent(station.slug),
    ext,
  );
  return `${base}${path}?${LISTEN_TOKEN_PARAM}=${token}`;
}
