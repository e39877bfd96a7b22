import { Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type FollowerCounts,
  FollowRequest,
  type FollowState,
  GuestFollowRequest,
  type GuestFollowResponse,
  StationId,
  UpdateFollowRequest,
} from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import { z } from 'zod';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { linkPage } from './follow-pages.js';
import { type LinkOutcome, FollowService } from './follow.service.js';

const Token = z.string().min(1).max(2048);
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

@ApiTags('follow')
@Controller()
export class FollowController {
  constructor(
    @Inject(FollowService) private readonly follows: FollowService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @OwnerRoute(
    'GET',
    'api/stations/follow/:stationId',
    'Whether you follow the station, and your switches for it',
  )
  state(
    @CurrentUser() user: AuthContext,
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
  ): Promise<FollowState> {
    return this.follows.state(user.userId, stationId);
  }

  @OwnerRoute(
    'POST',
    'api/stations/follow',
    'Follow a station {stationId}: told when it goes live',
    200,
  )
  @RateLimit('follow')
  follow(
    @CurrentUser() user: AuthContext,
    @ZodBody(FollowRequest) body: Parsed<typeof FollowRequest>,
  ): Promise<FollowState> {
    return this.follows.follow(user.userId, body.stationId);
  }

  @OwnerRoute('DELETE', 'api/stations/follow/:stationId', 'Stop following a station', 204)
  @RateLimit('follow')
  unfollow(
    @CurrentUser() user: AuthContext,
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
  ): Promise<void> {
    return this.follows.unfollow(user.userId, stationId);
  }

  @OwnerRoute(
    'POST',
    'api/stations/follow/settings',
    'Change how you are told {stationId, email?, push?, onLive?, beforeShow?, atShowStart?}',
    200,
  )
  settings(
    @CurrentUser() user: AuthContext,
    @ZodBody(UpdateFollowRequest) body: Parsed<typeof UpdateFollowRequest>,
  ): Promise<FollowState> {
    return this.follows.update(user.userId, body);
  }

  @Post('api/stations/follow/email')
  @HttpCode(202)
  @RateLimit('follow', 'mail')
  @ApiOperation({
    summary:
      'Follow by e-mail without an account {stationId, email}: a confirmation mail (double opt-in); the same answer whether or not the address follows already',
  })
  guest(
    @ZodBody(GuestFollowRequest) body: Parsed<typeof GuestFollowRequest>,
  ): Promise<GuestFollowResponse> {
    return this.follows.guestFollow(body);
  }

  @OwnerRoute(
    'GET',
    'api/stations/:id/followers',
    'How many follow the station (owner only; never who)',
  )
  counts(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) stationId: string,
  ): Promise<FollowerCounts> {
    return this.follows.counts(user.userId, stationId);
  }

  // ---- links in mails: no sign-in ----

  @Get('api/follow/confirm')
  @ApiOperation({ summary: "A guest's confirmation link: a page with the button that confirms" })
  async confirmPage(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const got = await this.withToken(token, (t) => this.follows.confirmTarget(t));
    if (!got.ok) return this.page(res, 400, { title: 'Link not valid', message: got.reason });
    const name = got.station?.name ?? 'this station';
    if (got.already)
      return this.page(res, 200, this.confirmed(name, got.station, 'You already follow'));
    this.page(res, 200, {
      title: `Follow ${name}?`,
      message: `Confirm and we will e-mail you when ${name} goes live. Every mail has a link to stop them.`,
      action: { url: selfUrl('confirm', String(token)), label: 'Confirm' },
    });
  }

  @Post('api/follow/confirm')
  @HttpCode(200)
  @ApiOperation({ summary: "Confirms a guest's follow (the button of the confirmation page)" })
  async confirm(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const got = await this.withToken(token, (t) => this.follows.confirm(t));
    if (!got.ok) return this.page(res, 400, { title: 'Link not valid', message: got.reason });
    this.page(
      res,
      200,
      this.confirmed(got.station?.name ?? 'this station', got.station, 'You now follow'),
    );
  }

  @Get('api/follow/unsubscribe')
  @ApiOperation({ summary: "A mail's unsubscribe link: a page with the button that unsubscribes" })
  async unsubscribePage(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const got = await this.withToken(token, (t) => this.follows.unsubscribeTarget(t));
    if (!got.ok) return this.page(res, 400, { title: 'Link not valid', message: got.reason });
    if (got.already)
      return this.page(res, 200, {
        title: 'Unsubscribed',
        message: 'You get no more of these mails.',
      });
    const name = got.station?.name ?? 'this station';
    this.page(res, 200, {
      title: `Stop mails from ${name}?`,
      message: `You will no longer get an e-mail when ${name} goes live.`,
      action: { url: selfUrl('unsubscribe', String(token)), label: 'Unsubscribe' },
    });
  }

  @Post('api/follow/unsubscribe')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post), no sign-in: no more mails from this follow',
  })
  async unsubscribe(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const got = await this.withToken(token, (t) => this.follows.unsubscribe(t));
    if (!got.ok) return this.page(res, 400, { title: 'Link not valid', message: got.reason });
    const name = got.station?.name;
    this.page(res, 200, {
      title: 'Unsubscribed',
      message: name
        ? `You get no more e-mails when ${name} goes live.`
        : 'You get no more of these mails.',
    });
  }

  private async withToken(
    token: unknown,
    fn: (token: string) => Promise<LinkOutcome>,
  ): Promise<LinkOutcome> {
    const parsed = Token.safeParse(token);
    if (!parsed.success) return { ok: false, reason: 'This link is not valid' };
    return fn(parsed.data);
  }

  private confirmed(
    name: string,
    station: { slug: string; broadcaster: { username: string } } | null,
    lead: string,
  ) {
    return {
      title: `${lead} ${name}`,
      message: `We will e-mail you when ${name} goes live. Every mail has a link to stop them.`,
      ...(station
        ? {
            back: {
              url: `${this.config.publicUrl}/${station.broadcaster.username}/${station.slug}`,
              label: `Go to ${name}`,
            },
          }
        : {}),
    };
  }

  private page(res: Response, status: number, body: Parameters<typeof linkPage>[0]): void {
    res
      .status(status)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': PAGE_CSP,
        'Referrer-Policy': 'no-referrer',
      })
      .send(linkPage(body));
  }
}

/** The link's own path (the form posts back to it). */
function selfUrl(what: 'confirm' | 'unsubscribe', token: string): string {
  return `/api/follow/${what}?token=${encodeURIComponent(token)}`;
}
