import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  CreateStationRequest,
  type CreateStationResponse,
  NowPlayingRequest,
  StationId,
  StationIdRequest,
  UpdateStationRequest,
} from '@radiobroadcaster/contracts';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { docReply, PUBLIC_POLL_CACHE_CONTROL, sendReply } from '../common/json-doc.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { OwnerRoute, ZodBody } from './owner-routes.js';
import { StationReadModel } from './station-read-model.js';
import { StationTokensService } from './station-tokens.service.js';
import { StationsService } from './stations.service.js';

@ApiTags('stations')
@Controller('api/stations')
export class StationsController {
  constructor(
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StationReadModel) private readonly reads: StationReadModel,
    @Inject(StationTokensService) private readonly tokens: StationTokensService,
  ) {}

  @Get('discover')
  @ApiOperation({ summary: 'Live stations first, then the most recently active' })
  @ApiOkResponse({ description: '{ stations: Station[] }; ETag, 304 when unchanged' })
  async discover(@Req() req: Request, @Res() res: Response): Promise<void> {
    sendReply(res, docReply(req, await this.reads.discoverDoc(), PUBLIC_POLL_CACHE_CONTROL));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One station by id' })
  @ApiOkResponse({ description: 'Station; ETag, 304 when unchanged' })
  async get(
    @Param('id', new ZodPipe(StationId)) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    sendReply(res, docReply(req, await this.reads.stationDoc(id), PUBLIC_POLL_CACHE_CONTROL));
  }

  @OwnerRoute('POST', '', 'Create a station; answers with it and a station token for publishing')
  async create(
    @CurrentUser() user: AuthContext,
    @ZodBody(CreateStationRequest) body: Parsed<typeof CreateStationRequest>,
  ): Promise<CreateStationResponse> {
    const station = await this.stations.create(user.userId, body);
    return {
      station,
      streamToken: this.tokens.issueStationToken(station.id, user.userId, user.sessionId),
    };
  }

  @OwnerRoute('POST', 'update', undefined, 200)
  update(
    @CurrentUser() user: AuthContext,
    @ZodBody(UpdateStationRequest) body: Parsed<typeof UpdateStationRequest>,
  ) {
    return this.stations.update(user.userId, body);
  }

  @OwnerRoute('POST', 'now-playing', undefined, 200)
  nowPlaying(
    @CurrentUser() user: AuthContext,
    @ZodBody(NowPlayingRequest) body: Parsed<typeof NowPlayingRequest>,
  ) {
    return this.stations.setNowPlaying(user.userId, body);
  }

  @OwnerRoute('POST', 'now-playing/clear', undefined, 200)
  clearNowPlaying(
    @CurrentUser() user: AuthContext,
    @ZodBody(StationIdRequest) body: Parsed<typeof StationIdRequest>,
  ) {
    return this.stations.clearNowPlaying(user.userId, body.stationId);
  }

  @OwnerRoute('POST', 'end', undefined, 200)
  end(
    @CurrentUser() user: AuthContext,
    @ZodBody(StationIdRequest) body: Parsed<typeof StationIdRequest>,
  ) {
    return this.stations.end(user.userId, body.stationId);
  }

  @OwnerRoute(
    'DELETE',
    ':id',
    'Delete a station for good: its listeners are disconnected and its slug is free again',
    204,
  )
  async remove(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<void> {
    await this.stations.remove(user.userId, id);
  }

  @OwnerRoute(
    'POST',
    'token/refresh',
    'A fresh station token (about an hour) for publishing to one owned station',
    200,
  )
  @RateLimit('publish')
  async refreshToken(
    @CurrentUser() user: AuthContext,
    @ZodBody(StationIdRequest) body: Parsed<typeof StationIdRequest>,
  ) {
    await this.stations.owned(body.stationId, user.userId);
    return this.tokens.issueStationToken(body.stationId, user.userId, user.sessionId);
  }
}
