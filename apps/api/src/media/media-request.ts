/**
 * What the WHIP/WHEP routes read from a request and write to a response: the bearer, the caller,
 * the SDP offer, CORS, the 201 answer; as functions and as parameter decorators.
 */
import {
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  Param,
} from '@nestjs/common';
import { ErrorTag, StationId } from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import type { Caller } from './media.service.js';

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
