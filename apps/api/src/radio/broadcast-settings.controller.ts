import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type BroadcastSettings,
  ICECAST_SOURCE_USER,
  ingestMount,
  listenPath,
  type ListenExtension,
  type RotateStreamKeyResponse,
  SIGNED_PLAYLIST_TTL_HOURS,
  StationId,
  StationIdRequest,
  UpdateBroadcastSettingsRequest,
} from '@radiobroadcaster/contracts';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { ListenGrants } from './listen-grants.js';
import type { RadioSettingsEntity } from './radio-settings.entity.js';
import { StreamKeysService } from './stream-keys.service.js';

@ApiTags('broadcasting from other software')
@Controller('api/stations')
@UseGuards(SessionGuard)
export class BroadcastSettingsController {
  constructor(
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
  ) {}

  @Get(':id/broadcast-settings')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Stream key, WHIP URL, Icecast server/mount and HTTP stream URLs (owner only)',
  })
  async get(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<BroadcastSettings> {
    const station = await this.stations.owned(id, user.userId);
    return this.view(station, await this.keys.settings(id));
  }

  @Post('stream-key/rotate')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @RateLimit('publish')
  @ApiOperation({ summary: 'A new stream key; a source still using the old one is cut off' })
  async rotate(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(StationIdRequest)) body: Parsed<typeof StationIdRequest>,
  ): Promise<RotateStreamKeyResponse> {
    await this.stations.owned(body.stationId, user.userId);
    return { streamKey: await this.keys.rotate(body.stationId) };
  }

  @Post('broadcast-settings')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary:
      'Turn the public HTTP stream URL (radio apps, VLC, any page) on or off; off, only signed links play',
  })
  async update(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(UpdateBroadcastSettingsRequest))
    body: Parsed<typeof UpdateBroadcastSettingsRequest>,
  ): Promise<BroadcastSettings> {
    const station = await this.stations.owned(body.stationId, user.userId);
    return this.view(
      station,
      await this.keys.setPublicStreamUrl(body.stationId, user.userId, body.publicStreamUrl),
    );
  }

  private async view(
    station: StationEntity,
    settings: RadioSettingsEntity,
  ): Promise<BroadcastSettings> {
    const base = new URL(this.config.publicUrl);
    const tls = base.protocol === 'https:';
    const username = station.broadcaster.username;
    const at = (ext: ListenExtension) =>
      `${this.config.publicUrl}${listenPath(username, station.slug, ext)}`;
    const domainsListed = await this.keys.domainsListed(station.broadcasterId);
    const publicStreamUrl = settings.publicStreamUrl ?? !domainsListed;
    let signedListen: BroadcastSettings['signedListen'] = null;
    if (!publicStreamUrl) {
      const { lid: _lid, ...urls } = this.grants.issue(
        station,
        { via: 'owner', origin: null, gid: 'owner' },
        SIGNED_PLAYLIST_TTL_HOURS * 3600,
        this.config.publicUrl,
      );
      signedListen = urls;
    }
    return {
      stationId: station.id,
      streamKey: this.keys.reveal(settings),
      streamKeyRotatedAt: settings.streamKeyRotatedAt.toISOString(),
      whipUrl: `${this.config.publicUrl}/whip/${station.id}`,
      icecast: {
        host: base.hostname,
        port: base.port ? Number(base.port) : tls ? 443 : 80,
        tls,
        mount: ingestMount(username, station.slug),
        username: ICECAST_SOURCE_USER,
      },
      listen: { ogg: at('ogg'), mp3: at('mp3'), m3u: at('m3u'), pls: at('pls') },
      publicStreamUrl,
      publicStreamUrlSetByOwner: settings.publicStreamUrl !== null,
      domainsListed,
      signedListen,
    };
  }
}
