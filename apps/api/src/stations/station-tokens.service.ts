import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SessionsRepository } from '../auth/sessions.repository.js';
import type { StationToken } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import {
  type ListenerTokenClaims,
  type StationTokenClaims,
  TokenSigner,
} from '../common/signed-token.js';

@Injectable()
export class StationTokensService {
  readonly station: TokenSigner<StationTokenClaims>;
  readonly listener: TokenSigner<ListenerTokenClaims>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SessionsRepository) private readonly sessions: SessionsRepository,
  ) {
    this.station = new TokenSigner(config.authSecret, 'station-publish');
    this.listener = new TokenSigner(config.authSecret, 'station-listen');
  }

  /** Publishing rights for one station, valid while the sign-in session `sid` lasts (at most the TTL). */
  issueStationToken(stationId: string, userId: string, sid: string): StationToken {
    return this.station.sign(
      { stationId, userId, sid, tid: randomUUID() },
      this.config.stationTokenTtlSeconds,
    );
  }

  /**
   * A station token's claims once its signature, expiry and session check out: `revoked` when
   * the session it was issued under was signed out or revoked (or the token predates sessions).
   */
  async verifyStationToken(
    token: string,
  ): Promise<
    | { ok: true; claims: StationTokenClaims }
    | { ok: false; reason: 'malformed' | 'expired' | 'revoked' }
  > {
    const result = this.station.verify(token);
    if (!result.ok) return result;
    const { sid, userId } = result.claims;
    if (typeof sid !== 'string' || !(await this.sessions.findActive(sid, userId)))
      return { ok: false, reason: 'revoked' };
    return result;
  }

  issueListenerToken(
    stationId: string,
    origin: string | null,
    grant?: ListenerTokenClaims['grant'],
  ): StationToken {
    return this.listener.sign(
      { stationId, origin, tid: randomUUID(), ...(grant && { grant }) },
      this.config.listenerTokenTtlSeconds,
    );
  }
}
