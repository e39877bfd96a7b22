/**
 * The routes of a WHIP or WHEP resource (whip.controller.ts, whep.controller.ts), declared once:
 *   POST    /{whip|whep}/:stationId                        opens a session: 201, answer, Location
 *   OPTIONS /{whip|whep}/:stationId[/sessions/:sessionId]  CORS preflight
 *   DELETE  /{whip|whep}/:stationId/sessions/:sessionId    ends the session: 204
 *   any other method on a session                          405 (no trickle ICE, no ICE restart)
 */
import { All, Delete, HttpCode, Inject, Options, Post, Res, UseInterceptors } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorTag } from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import { AppError } from '../common/app-error.js';
import type { RateLimitName } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { IceServersService } from '../turn/ice-servers.service.js';
import { type Caller, MediaService } from './media.service.js';
import {
  Bearer,
  CallerOf,
  MediaCors,
  SdpOffer,
  SessionParam,
  StationParam,
  sendAnswer,
} from './media-request.js';

/** The two kinds of SDP resource: who opens their sessions, under which limit. */
const SDP_RESOURCES = {
  whip: {
    caller: 'publisher',
    limit: 'publish',
    summary: 'Publish: SDP offer (application/sdp) with a station token → 201 + answer + Location',
  },
  whep: {
    caller: 'listener',
    limit: 'listen',
    summary:
      'Listen: SDP offer (application/sdp), optionally with the token from joinStationAsReceiver → 201 + answer',
  },
} as const satisfies Record<
  string,
  { caller: 'publisher' | 'listener'; limit: RateLimitName; summary: string }
>;

/**
 * A controller base with what WHIP and WHEP resources share: the POST that opens a session (201
 * with the answer, its `Location` and the caller's ICE servers), CORS on every answer, the
 * preflight, DELETE of a session, and 405 for trickle ICE and ICE restarts. Subclasses say how a
 * session opens and ends.
 */
export function SdpResourceController(kind: keyof typeof SDP_RESOURCES) {
  const { caller: callerKind, limit, summary } = SDP_RESOURCES[kind];

  @UseInterceptors(MediaCors)
  abstract class SdpResource {
    constructor(
      @Inject(MediaService) readonly media: MediaService,
      @Inject(IceServersService) readonly ice: IceServersService,
    ) {}

    @Post()
    @RateLimit(limit)
    @ApiOperation({ summary })
    async open(
      @StationParam() stationId: string,
      @Bearer() bearer: string | null,
      @CallerOf() caller: Caller,
      @SdpOffer() offer: string,
      @Res() res: Response,
    ): Promise<void> {
      const session = await this.openSession(stationId, bearer, caller, offer);
      // TURN credentials only for an accepted exchange
      const links = this.ice.links(this.ice.forCaller(callerKind));
      sendAnswer(res, `/${kind}/${stationId}`, session, links);
    }

    @Options(['', 'sessions/:sessionId'])
    @HttpCode(204)
    preflight(@Res({ passthrough: true }) res: Response): void {
      res.setHeader('Accept-Post', 'application/sdp');
    }

    @Delete('sessions/:sessionId')
    @HttpCode(204)
    end(
      @StationParam() stationId: string,
      @SessionParam() sessionId: string,
      @Bearer() bearer: string | null,
    ): Promise<void> {
      return this.endSession(stationId, sessionId, bearer);
    }

    /** Registered after DELETE, so it only takes the other methods. */
    @All('sessions/:sessionId')
    unsupported(@Res({ passthrough: true }) res: Response): never {
      res.setHeader('Allow', 'DELETE, OPTIONS');
      throw new AppError(
        ErrorTag.MethodNotAllowed,
        'Trickle ICE and ICE restarts are not supported; offers must carry their candidates',
      );
    }

    /** Opens the session (the bearer must be one that may) and answers the offer. */
    abstract openSession(
      stationId: string,
      bearer: string | null,
      caller: Caller,
      offer: string,
    ): Promise<{ sessionId: string; answer: string }>;

    /** Ends the session (the bearer must be the one that may). */
    abstract endSession(stationId: string, sessionId: string, bearer: string | null): Promise<void>;
  }
  return SdpResource;
}
