import { timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * `/metrics` tells the Node version, memory and traffic: with METRICS_TOKEN it needs that bearer
 * token; without, only a client on this machine reaching it directly (no proxy headers) gets it.
 */
@Injectable()
export class MetricsAccessGuard implements CanActivate {
  private readonly token: Buffer | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.token = config.metricsToken ? Buffer.from(config.metricsToken) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (this.token) {
      const given = Buffer.from(
        /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '',
      );
      if (given.length === this.token.length && timingSafeEqual(given, this.token)) return true;
      throw AppError.unauthorized('Metrics need the METRICS_TOKEN bearer token');
    }
    const direct =
      LOOPBACK.has(req.socket.remoteAddress ?? '') &&
      !req.headers['x-forwarded-for'] &&
      !req.headers.forwarded;
    if (direct) return true;
    throw AppError.forbidden(
      'Metrics are served to this machine only; set METRICS_TOKEN to scrape them',
    );
  }
}
