import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { DomainsModule } from '../domains/domains.module.js';
import { MediaModule } from '../media/media.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { StatsModule } from '../stats/stats.module.js';
import { HttpListen } from './http-listen.service.js';
import { HttpStreams } from './http-streams.js';
import { IcecastIngest } from './icecast-ingest.service.js';
import { ListenAddresses } from './listen-addresses.js';
import { StreamKeysModule } from './stream-keys.module.js';

/**
 * Radio compatibility on the API's own port: Icecast-protocol sources (`SOURCE`/`PUT /ingest/…`,
 * `/admin/metadata`) and HTTP listening (`/listen/…`). Both sit in front of Express (see bootstrap).
 */
@Module({
  imports: [
    StationsModule,
    StreamKeysModule,
    MediaModule,
    DomainsModule,
    StatsModule,
    AccessModule,
  ],
  providers: [IcecastIngest, HttpListen, HttpStreams, ListenAddresses],
  exports: [IcecastIngest, HttpListen],
})
export class RadioModule {}
