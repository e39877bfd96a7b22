import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../common/app-error.js';
import { originOfHeader, requestOrigin } from '../common/request-origin.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { tokenVia } from './session-jwt.strategy.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CHECK_ORIGIN = 'rb:check-origin';

/** Sign-in and sign-up: refuse an untrusted `Origin` even without a cookie (login CSRF). */
export const CheckOrigin = () => SetMetadata(CHECK_ORIGIN, true);

/**
 * Global CSRF guard (APP_GUARD): a cookie-authenticated unsafe request (POST/PUT/PATCH/DELETE)
 * must carry an `Origin` that is the request's own (same-origin: scheme and `Host`) or among
 * `config.trustedOrigins`. Bearer requests are exempt: a browser cannot attach that header
 * cross-site without a CORS preflight.
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (SAFE_METHODS.has(req.method.toUpperCase())) return true;
    const origin = req.headers.origin;
    const strictRoute = this.reflector.getAllAndOverride<boolean | undefined>(CHECK_ORIGIN, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (strictRoute && origin !== undefined && !this.isTrusted(req, origin)) throw refused();
    if (tokenVia(req) !== 'cookie') return true;
    if (!this.isTrusted(req, origin)) throw refused();
    return true;
  }

  private isTrusted(req: Request, origin: string | undefined): boolean {
    const o = originOfHeader(origin);
    return o !== null && (this.config.trustedOrigins.includes(o) || o === requestOrigin(req));
  }
}

function refused(): AppError {
  return AppError.forbidden('Cross-site request refused');
}
