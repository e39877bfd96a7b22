import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type PodcastEpisode,
  type PodcastResponse,
  RecordingId,
  StationId,
  UpdateEpisodeRequest,
} from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { z } from 'zod';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { PodcastService } from './podcast.service.js';

const KeyQuery = z.object({ key: z.string().max(2048).optional() });
const GrantQuery = z.object({ grant: z.string().max(2048).optional() });

@ApiTags('podcast')
@Controller()
export class PodcastController {
  constructor(@Inject(PodcastService) private readonly podcast: PodcastService) {}

  @Get(':username/:slug/podcast.xml')
  @ApiOperation({
    summary:
      "A station's public replays as a podcast (RSS 2.0 with the iTunes and Podcasting 2.0 namespaces); a private station's only with a subscriber's own `?key=` (GET /api/stations/{id}/feeds), 403 without or once their access is revoked",
  })
  async feed(
    @Param('username') username: string,
    @Param('slug') slug: string,
    @Query(new ZodPipe(KeyQuery)) { key }: { key?: string },
    @Res() res: Response,
  ): Promise<void> {
    const { xml, personal } = await this.podcast.feed(username, slug, key);
    res
      .status(200)
      .set({
        'Content-Type': 'application/rss+xml; charset=utf-8',
        'Cache-Control': personal ? 'private, no-store' : 'public, max-age=300',
      })
      .send(xml);
  }

  @Get(':username/:slug/podcast.jpg')
  @ApiOperation({ summary: "The podcast's square artwork (JPEG, 1400×1400)" })
  async artwork(
    @Param('username') username: string,
    @Param('slug') slug: string,
    @Res() res: Response,
  ): Promise<void> {
    const jpeg = await this.podcast.artwork(username, slug);
    res
      .status(200)
      .set({ 'Content-Type': 'image/jpeg', 'Cache-Control': 'public, max-age=3600' })
      .send(jpeg);
  }

  @Get('api/recordings/:recordingId/chapters.json')
  @ApiOperation({
    summary:
      "A public replay's chapters from its now-playing timeline (JSON chapters 1.2.0); a private one's with a listening grant (`?grant=`)",
  })
  async chapters(
    @Param('recordingId', new ZodPipe(RecordingId)) id: string,
    @Query(new ZodPipe(GrantQuery)) { grant }: { grant?: string },
    @Res() res: Response,
  ): Promise<void> {
    const body = await this.podcast.chapters(id, grant);
    res
      .status(200)
      .set({
        'Content-Type': 'application/json+chapters; charset=utf-8',
        'Cache-Control': grant ? 'private, no-store' : 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
      })
      .send(JSON.stringify(body));
  }

  @OwnerRoute(
    'GET',
    'api/stations/:id/podcast',
    "The podcast's address and every replay as an episode (owner only)",
  )
  list(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) stationId: string,
  ): Promise<PodcastResponse> {
    return this.podcast.list(user.userId, stationId);
  }

  @OwnerRoute(
    'POST',
    'api/stations/podcast/episodes/update',
    'Change an episode {recordingId, title?, notes?, inFeed?}: inFeed false drops it from the feed',
    200,
  )
  update(
    @CurrentUser() user: AuthContext,
    @ZodBody(UpdateEpisodeRequest) body: Parsed<typeof UpdateEpisodeRequest>,
  ): Promise<PodcastEpisode> {
    return this.podcast.update(user.userId, body);
  }
}
