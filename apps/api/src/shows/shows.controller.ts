import { Controller, Get, Header, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateShowRequest,
  type Show,
  ShowId,
  ShowsQuery,
  type ShowsResponse,
  StationId,
  UpdateShowRequest,
} from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { OptionalSessionGuard } from '../auth/session.guard.js';
import { StationsService } from '../stations/stations.service.js';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { OwnedItemsController, OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { showsCalendar } from './show-calendar.js';
import { ShowsService } from './shows.service.js';

@ApiTags('shows')
@Controller()
export class ShowsController extends OwnedItemsController<Show, UpdateShowRequest>({
  path: 'shows',
  id: { param: 'showId', schema: ShowId },
  update: {
    schema: UpdateShowRequest,
    summary: 'Change a show: title, description, startsAt, durationMinutes, timeZone, repeat',
  },
  remove: { summary: 'Remove a show from the schedule' },
}) {
  constructor(
    @Inject(ShowsService) private readonly shows: ShowsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(StationsService) private readonly stations: StationsService,
  ) {
    super(shows);
  }

  @OwnerRoute(
    'POST',
    'api/stations/shows',
    'Schedule a show {stationId, title, description?, startsAt, durationMinutes, timeZone, repeat?}; 409 SHOW_OVERLAP when it overlaps another',
  )
  create(
    @CurrentUser() user: AuthContext,
    @ZodBody(CreateShowRequest) body: Parsed<typeof CreateShowRequest>,
  ): Promise<Show> {
    return this.shows.create(user.userId, body);
  }

  @Get('api/stations/:id/shows')
  @Header('Cache-Control', 'no-cache')
  @ApiOperation({
    summary:
      "A station's shows and their occurrences overlapping [from, to) (default: the next 14 days; at most 92 days and 500 occurrences), each upcoming, live, aired or missed",
  })
  // a private station's schedule: its owner, or a listener with a grant (`?grant=`)
  @UseGuards(OptionalSessionGuard)
  async feed(
    @Param('id', new ZodPipe(StationId)) stationId: string,
    @Query(new ZodPipe(ShowsQuery.extend({ grant: z.string().max(2048).optional() })))
    query: ShowsQuery & { grant?: string },
    @CurrentUser() user: AuthContext | undefined,
  ): Promise<ShowsResponse> {
    await this.access.assertMayHear(
      await this.stations.entity(stationId),
      user?.userId,
      query.grant,
    );
    const { grant: _grant, ...window } = query;
    return this.shows.feed(stationId, window);
  }

  @Get(':username/:slug/schedule.ics')
  @ApiOperation({
    summary:
      "A station's shows as an iCalendar feed (RFC 5545); a private station's only for its owner, a listener's grant (`?grant=`) or a subscriber's own `?key=` (GET /api/stations/{id}/feeds), 403 once their access is revoked",
  })
  @UseGuards(OptionalSessionGuard)
  async calendar(
    @Param('username') username: string,
    @Param('slug') slug: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user: AuthContext | undefined,
  ): Promise<void> {
    const { station, shows } = await this.shows.byAddress(username, slug);
    // a private station's: its owner, a listener's grant, or a subscriber's own feed key
    if (req.query.key !== undefined && station.broadcasterId !== user?.userId)
      await this.access.feedAccess(station, req.query.key);
    else await this.access.assertMayHear(station, user?.userId, req.query.grant);
    res
      .status(200)
      .set({
        'Content-Type': 'text/calendar; charset=utf-8',
        'Content-Disposition': `inline; filename="${station.slug}.ics"`,
        'Cache-Control':
          station.visibility === 'private' ? 'private, no-store' : 'public, max-age=300',
      })
      .send(showsCalendar(station, shows, this.config.publicUrl));
  }
}
