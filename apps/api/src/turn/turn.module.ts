import { Global, Module } from '@nestjs/common';
import { IceServersService } from './ice-servers.service.js';

/** ICE servers and per-caller TURN credentials, for the join and the WHIP/WHEP exchanges. */
@Global()
@Module({ providers: [IceServersService], exports: [IceServersService] })
export class TurnModule {}
