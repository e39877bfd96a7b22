import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { AppError } from '../common/app-error.js';
import { WebService } from './web.service.js';

const API_PREFIXES = ['/api/', '/whip/', '/whep/', '/socket.io/', '/health'];

/** Redirects, the player bundle, and every other GET answered by the web app's index.html. */
@ApiExcludeController()
@Controller()
export class WebController {
  constructor(
    @Inject(WebService) private readonly web: WebService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(['app-store', 'appstore', 'review', 'press', 'discord'])
  redirect(@Req() req: Request, @Res() res: Response): void {
    res.redirect(302, this.config.redirects[req.path.replace(/\/$/, '')]!);
  }

  @Get(['player.js', 'player.mjs'])
  playerScript(@Req() req: Request, @Query('v') v: string | undefined, @Res() res: Response): void {
    const bundle = this.web.playerBundle();
    if (!bundle) throw AppError.notFound('The player is not built: run npm run build');
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('ETag', `"${bundle.version}"`);
    // `?v={version}` is immutable; the bare URL revalidates every few minutes.
    res.setHeader(
      'Cache-Control',
      v === bundle.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
    res.send(req.path.endsWith('.mjs') ? bundle.esm : bundle.classic);
  }

  @Get('{*splat}')
  async page(
    @Param('splat') _splat: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // A build file that does not exist (an old hash, a typo) is a 404, never the app's HTML.
    if (API_PREFIXES.some((p) => req.path.startsWith(p)) || /^\/assets\/./.test(req.path))
      throw AppError.notFound(`Cannot GET ${req.path}`);
    const { html, frameAncestors, status, noindex } = await this.web.render(req.path, {
      fetchDest: req.get('sec-fetch-dest'),
      referer: req.get('referer'),
      ownOrigins: [...this.config.trustedOrigins, `${req.protocol}://${req.get('host')}`],
    });
    res.status(status);
    if (noindex) res.setHeader('X-Robots-Tag', 'noindex');
    // The embed page's framing answer depends on who frames it.
    if (req.path.startsWith('/embed/')) res.setHeader('Vary', 'Sec-Fetch-Dest, Referer');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader(
      'Content-Security-Policy',
      [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https:",
        "media-src 'self' blob: mediastream:",
        "connect-src 'self' ws: wss:",
        "base-uri 'self'",
        "form-action 'self'",
        `frame-ancestors ${frameAncestors.join(' ')}`,
      ].join('; '),
    );
    if (frameAncestors.length === 1 && frameAncestors[0] === "'self'")
      res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    res.send(html);
  }
}
