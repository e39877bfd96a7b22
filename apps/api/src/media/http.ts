import {
  All,
  type CallHandler,
  createParamDecorator,
  Delete,
  type ExecutionContext,
  HttpCode,
  Inject,
  Injectable,
  type NestInterceptor,
  Options,
  Param,
  Post,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorTag, StationId } from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import type { RateLimitName } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { IceServersService } from '../turn/ice-servers.service.js';
import { type Caller, MediaService } from './media.service.js';

export function bearerOf(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1]! : null;
}

/**
 * The `Origin` header as sent, `'null'` included (a sandboxed iframe, a `data:` page: a browser
 * whose site can't be known), or null when there is none (not a browser).
 */
export function originOf(req: Request): string | null {
  const o = req.headers.origin;
  return typeof o === 'string' && o !== '' ? o : null;
}

export function callerOf(req: Request): Caller {
  return {
    origin: originOf(req),
    ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    userAgent: req.get('user-agent') ?? null,
  };
}

/** WHIP/WHEP bodies: `application/sdp` only (415 otherwise), non-empty. */
export function sdpBody(req: Request): string {
  if (!req.is('application/sdp')) {
    throw new AppError(ErrorTag.UnsupportedMediaType, 'Content-Type must be application/sdp');
  }
  if (typeof req.body !== 'string' || req.body.trim() === '')
    throw AppError.validation('The SDP offer is empty');
  return req.body;
}

/**
 * WHIP (RFC 9725) and WHEP are called from players and publishers on other origins: answer
 * the preflight and expose `Location`.
 */
export function setMediaCors(req: Request, res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', originOf(req) ?? '*');
  res.setHeader('Vary', 'Origin');
  // PATCH stays allowed so that trickle-ICE clients read our 405 instead of a CORS failure.
  res.setHeader('Access-Control-Allow-Methods', 'POST, DELETE, PATCH, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, If-Match');
  res.setHeader('Access-Control-Expose-Headers', 'Location, ETag, Link, Accept-Patch');
  res.setHeader('Access-Control-Max-Age', '600');
}

/**
 * 201 with the SDP answer and the session's URL (`Location`) to DELETE; `links` are the caller's
 * ICE servers as RFC 9725 `Link: <turn:…>; rel="ice-server"` values.
 */
export function sendAnswer(
  res: Response,
  resource: string,
  session: { sessionId: string; answer: string },
  links: string[] = [],
): void {
  if (links.length) res.setHeader('Link', links);
  res
    .status(201)
    .setHeader('Content-Type', 'application/sdp')
    .setHeader('Location', `${resource}/sessions/${session.sessionId}`)
    .send(session.answer);
}

const requestOf = (ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>();

/** The route's `:stationId`, a UUID (400 otherwise). */
export const StationParam = () => Param('stationId', new ZodPipe(StationId));
/** The route's `:sessionId`, a UUID like every session id (400 otherwise). */
export const SessionParam = () => Param('sessionId', new ZodPipe(StationId));
/** The bearer token of the request, or null. */
export const Bearer = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  bearerOf(requestOf(ctx)),
);
/** The SDP offer in the body (`application/sdp`, 415 otherwise; 400 when empty). */
export const SdpOffer = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  sdpBody(requestOf(ctx)),
);
/** Who is asking (Origin, client IP). */
export const CallerOf = createParamDecorator((_: unknown, ctx: ExecutionContext) =>
  callerOf(requestOf(ctx)),
);

/** CORS headers on every answer of a WHIP/WHEP resource, errors included. */
@Injectable()
export class MediaCors implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler) {
    const http = ctx.switchToHttp();
    setMediaCors(http.getRequest<Request>(), http.getResponse<Response>());
    return next.handle();
  }
}

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
