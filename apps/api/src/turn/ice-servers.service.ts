import { Inject, Injectable } from '@nestjs/common';
import type { IceServer } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { callerId, iceServerLinks, mintTurnCredentials } from './ice-servers.js';

/**
 * The ICE servers a caller gets with an accepted join or WHIP/WHEP exchange: the configured static
 * ones (`ICE_SERVERS`) plus TURN credentials minted for this caller alone. Call it only once the
 * caller was admitted: refused or throttled callers never get relay credentials.
 */
@Injectable()
export class IceServersService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** True when TURN relays are configured. */
  get hasTurn(): boolean {
    return this.config.rtc.turn !== null;
  }

  forCaller(kind: 'listener' | 'publisher', now: number = Date.now()): IceServer[] {
    const servers: IceServer[] = this.config.rtc.iceServers.map((s) => ({ ...s }));
    const turn = this.config.rtc.turn;
    if (turn) servers.push(mintTurnCredentials(turn, callerId(kind), now));
    return servers;
  }

  /** `Link` header values (RFC 9725) for the same servers. */
  links(servers: IceServer[]): string[] {
    return iceServerLinks(servers);
  }
}
