import { ErrorTag } from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';

export function bearerOf(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1]! : null;
}

export function originOf(req: Request): string | null {
  const o = req.headers.origin;
  return typeof o === 'string' && o !== 'null' ? o : null;
}

/** Absolute base of this API as the client reached it (honours `trust proxy`). */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
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
  res.setHeader('Access-Control-Allow-Methods', 'POST, DELETE, PATCH, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, If-Match');
  res.setHeader('Access-Control-Expose-Headers', 'Location, ETag, Link, Accept-Patch');
  res.setHeader('Access-Control-Max-Age', '600');
}
