import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type Recording,
  RecordingId,
  type RecordingSetting,
  RecordingSettingRequest,
  StationId,
  UpdateRecordingRequest,
} from '@radiobroadcaster/contracts';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { OptionalSessionGuard } from '../auth/session.guard.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { OwnedItemsController, OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { RecordingStorage } from './recording-storage.js';
import { RecordingsService } from './recordings.service.js';

@ApiTags('recordings')
@Controller()
export class RecordingsController extends OwnedItemsController<Recording, UpdateRecordingRequest>({
  path: 'recordings',
  id: { param: 'recordingId', schema: RecordingId },
  update: { schema: UpdateRecordingRequest, summary: 'Rename, publish or unpublish a recording' },
  remove: {},
}) {
  constructor(
    @Inject(RecordingsService) private readonly recordings: RecordingsService,
    @Inject(RecordingStorage) private readonly storage: RecordingStorage,
  ) {
    super(recordings);
  }

  @OwnerRoute(
    'POST',
    'api/stations/recording',
    'Record the station’s broadcasts or not (off by default): {stationId, enabled, retentionDays?}',
    200,
  )
  setSetting(
    @CurrentUser() user: AuthContext,
    @ZodBody(RecordingSettingRequest) body: Parsed<typeof RecordingSettingRequest>,
  ): Promise<RecordingSetting> {
    return this.recordings.setSetting(user.userId, body);
  }

  @OwnerRoute('GET', 'api/stations/:id/recording', 'The station’s recording setting (owner only)')
  setting(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) stationId: string,
  ): Promise<RecordingSetting> {
    return this.recordings.setting(user.userId, stationId);
  }

  @Get('api/stations/:id/recordings')
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({
    summary:
      "Recordings of a station, newest first: all for its owner, the listed ones for others (a private station's need its listening grant, `?grant=`)",
  })
  list(
    @CurrentUser() user: AuthContext | undefined,
    @Param('id', new ZodPipe(StationId)) stationId: string,
    @Query('grant') grant: string | undefined,
  ): Promise<Recording[]> {
    return this.recordings.list(stationId, user?.userId, grant);
  }

  @Get('api/users/:username/stations/:slug/recordings/:recordingId')
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({ summary: 'One recording by its public address (the replay page)' })
  byAddress(
    @CurrentUser() user: AuthContext | undefined,
    @Param('username') username: string,
    @Param('slug') slug: string,
    @Param('recordingId', new ZodPipe(RecordingId)) id: string,
    @Query('grant') grant: string | undefined,
  ): Promise<Recording> {
    return this.recordings.byAddress(username, slug, id, user?.userId, grant);
  }

  @Get('api/recordings/:recordingId/audio.ogg')
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({ summary: 'The Ogg/Opus file (HTTP Range for seeking; ?download=1 to save it)' })
  async audio(
    @CurrentUser() user: AuthContext | undefined,
    @Param('recordingId', new ZodPipe(RecordingId)) id: string,
    @Query('download') download: string | undefined,
    @Query('grant') grant: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.recordings.file(id, user?.userId, grant);
    const { row } = file;
    if (download)
      res.attachment(
        `recording-${row.startedAt.toISOString().slice(0, 16).replace(/[:T]/g, '-')}.ogg`,
      );
    const cacheControl = file.listed ? 'public, max-age=300' : 'private, no-store';
    if (file.kind === 's3') {
      // Streamed through this server (Range passed on), so listeners never reach a third party.
      const o = await this.storage.object(row.storageKey, req.headers.range, req.method === 'HEAD');
      if (o.status === 416) {
        res.status(416).set('Content-Range', `bytes */${row.sizeBytes}`).end();
        return;
      }
      res.status(o.status).set({ ...o.headers, 'Cache-Control': cacheControl });
      if (o.body) await pipeline(o.body, res);
      else res.end();
      return;
    }
    await new Promise<void>((resolve, reject) =>
      res.sendFile(
        file.path,
        {
          acceptRanges: true,
          cacheControl: false,
          headers: { 'Content-Type': 'audio/ogg', 'Cache-Control': cacheControl },
        },
        (err: (Error & { code?: string }) | undefined) => {
          if (!err || res.headersSent) resolve();
          // The file is on another node's disk (its upload to the bucket is pending).
          else if (err.code === 'ENOENT') reject(AppError.notFound('Recording not found'));
          else reject(err);
        },
      ),
    );
  }
}
