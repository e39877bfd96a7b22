import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
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

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.station = new TokenSigner(config.authSecret, 'station-publish');
    this.listener = new TokenSigner(config.authSecret, 'station-listen');
  }

  issueStationToken(stationId: string, userId: string): StationToken {
    return this.station.sign(
      { stationId, userId, tid: randomUUID() },
      this.config.stationTokenTtlSeconds,
    );
  }

  issueListenerToken(stationId: string, origin: string | null): StationToken {
    return this.listener.sign(
      { stationId, origin, tid: randomUUID() },
      this.config.listenerTokenTtlSeconds,
    );
  }
}
