import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
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
import { SessionGuard } from '../auth/session.guard.js';
import { docReply, PUBLIC_POLL_CACHE_CONTROL, sendReply } from '../common/json-doc.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
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

  @Post()
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Create a station; answers with it and a station token for publishing' })
  async create(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(CreateStationRequest)) body: CreateStationRequest,
  ): Promise<CreateStationResponse> {
    const station = await this.stations.create(user.userId, body);
    return {
      station,
      streamToken: this.tokens.issueStationToken(station.id, user.userId, user.sessionId),
    };
  }

  @Post('update')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  update(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(UpdateStationRequest)) body: UpdateStationRequest,
  ) {
    return this.stations.update(user.userId, body);
  }

  @Post('now-playing')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  nowPlaying(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(NowPlayingRequest)) body: NowPlayingRequest,
  ) {
    return this.stations.setNowPlaying(user.userId, body);
  }

  @Post('now-playing/clear')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  clearNowPlaying(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(StationIdRequest)) body: StationIdRequest,
  ) {
    return this.stations.clearNowPlaying(user.userId, body.stationId);
  }

  @Post('end')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  end(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(StationIdRequest)) body: StationIdRequest,
  ) {
    return this.stations.end(user.userId, body.stationId);
  }

  @Delete(':id')
  @HttpCode(204)
  @UseGuards(SessionGuard)
  @ApiOperation({
    summary: 'Delete a station for good: its listeners are disconnected and its slug is free again',
  })
  async remove(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<void> {
    await this.stations.remove(user.userId, id);
  }

  @Post('token/refresh')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @RateLimit('publish')
  @ApiOperation({
    summary: 'A fresh station token (about an hour) for publishing to one owned station',
  })
  async refreshToken(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(StationIdRequest)) body: StationIdRequest,
  ) {
    await this.stations.owned(body.stationId, user.userId);
    return this.tokens.issueStationToken(body.stationId, user.userId, user.sessionId);
  }
}
