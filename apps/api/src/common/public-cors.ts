import type { NextFunction, Request, Response } from 'express';

/**
 * The calls `<radio-player>` makes from other sites: public station reads, whether it may play
 * there, the join, and its chat history and listener list. Any origin, never credentials (the player sends no cookies), so a page
 * cannot act as the user.
 * Which sites may actually play is decided by the join (allowed domains), not by CORS.
 */
const PUBLIC_PATHS = [
  /^\/api\/stations\/[^/]+\/?$/,
  /^\/api\/users\/[^/]+\/stations(\/[^/]+)?\/?$/,
  /^\/api\/joinStationAsReceiver\/?$/,
  /^\/api\/stations\/[^/]+\/playable\/?$/,
  /^\/api\/stations\/[^/]+\/chat\/?$/,
  /^\/api\/stations\/[^/]+\/presence\/?$/,
];

export function publicCors(req: Request, res: Response, next: NextFunction): void {
  if (!PUBLIC_PATHS.some((p) => p.test(req.path))) return next();
  // Also without an Origin: a shared cache may hand this response to a page on another site.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, ETag');
  if (req.method === 'OPTIONS' && req.headers.origin) {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
}
