import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateStationRequest,
  type CreateStationResponse,
  type DiscoverResponse,
  NowPlayingRequest,
  type Station,
  StationId,
  StationIdRequest,
  UpdateStationRequest,
} from '@radiobroadcaster/contracts';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { StationTokensService } from './station-tokens.service.js';
import { StationsService } from './stations.service.js';

@ApiTags('stations')
@Controller('api/stations')
export class StationsController {
  constructor(
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StationTokensService) private readonly tokens: StationTokensService,
  ) {}

  @Get('discover')
  @ApiOperation({ summary: 'Live stations first, then the most recently active' })
  async discover(): Promise<DiscoverResponse> {
    return { stations: await this.stations.discover() };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One station by id' })
  get(@Param('id', new ZodPipe(StationId)) id: string): Promise<Station> {
    return this.stations.get(id);
  }

  @Post()
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Create a station; answers with it and a station token for publishing' })
  async create(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(CreateStationRequest)) body: CreateStationRequest,
  ): Promise<CreateStationResponse> {
    const station = await this.stations.create(user.userId, body);
    return { station, streamToken: this.tokens.issueStationToken(station.id, user.userId) };
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

  @Post('token/refresh')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({
    summary: 'A fresh station token (about an hour) for publishing to one owned station',
  })
  async refreshToken(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(StationIdRequest)) body: StationIdRequest,
  ) {
    await this.stations.owned(body.stationId, user.userId);
    return this.tokens.issueStationToken(body.stationId, user.userId);
  }
}
