import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { StreamKeysModule } from '../radio/stream-keys.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { AccessController } from './access.controller.js';
import { AccessRepository } from './access.repository.js';
import { AccessService } from './access.service.js';
import { AccessSessions } from './access-sessions.js';

/** Private stations: who may listen (invites, password, listener list) and ending revoked listeners. */
@Module({
  imports: [StationsModule, StreamKeysModule],
  controllers: [AccessController],
  providers: [AccessRepository, AccessService, AccessSessions],
  exports: [AccessService, AccessSessions],
})
export class AccessModule implements OnModuleInit {
  constructor(
    @Inject(AccessSessions) private readonly sessions: AccessSessions,
    @Inject(AccessService) private readonly access: AccessService,
  ) {}

  onModuleInit(): void {
    this.sessions.check = (s) =>
      this.access.grantValid(s.stationId, { via: s.via as never, gid: s.gid ?? undefined });
  }
}
