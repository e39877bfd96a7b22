import { Controller, Get, Header, Inject, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type StationStats, StationId, StatsQuery } from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { statsCsv } from './stats-csv.js';
import { StatsService } from './stats.service.js';

@ApiTags('stats')
@Controller('api/stations')
@UseGuards(SessionGuard)
export class StatsController {
  constructor(@Inject(StatsService) private readonly stats: StatsService) {}

  @Get(':id/stats')
  @Header('Cache-Control', 'private, no-store')
  @ApiOperation({
    summary:
      'Listening stats of a station (owner only): ?from=&to= (ISO), interval=minute|hour|day, tz, broadcastId',
  })
  get(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) stationId: string,
    @Query(new ZodPipe(StatsQuery)) query: Parsed<typeof StatsQuery>,
  ): Promise<StationStats> {
    return this.stats.stats(user.userId, stationId, query);
  }

  @Get(':id/stats.csv')
  @ApiOperation({ summary: 'The same series as CSV (one row per interval)' })
  async csv(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) stationId: string,
    @Query(new ZodPipe(StatsQuery)) query: Parsed<typeof StatsQuery>,
    @Res() res: Response,
  ): Promise<void> {
    const stats = await this.stats.stats(user.userId, stationId, query);
    res
      .status(200)
      .setHeader('Content-Type', 'text/csv; charset=utf-8')
      .setHeader('Cache-Control', 'private, no-store')
      .setHeader(
        'Content-Disposition',
        `attachment; filename="listening-${stats.from.slice(0, 10)}-${stats.to.slice(0, 10)}.csv"`,
      )
      .send(statsCsv(stats));
  }
}
