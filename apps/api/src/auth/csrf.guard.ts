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
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { tokenVia } from './session-jwt.strategy.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CHECK_ORIGIN = 'rb:check-origin';

/** Sign-in and sign-up: refuse an untrusted `Origin` even without a cookie (login CSRF). */
export const CheckOrigin = () => SetMetadata(CHECK_ORIGIN, true);

/** The origin of an `Origin` header, or null when it is missing or not a URL (`null` from sandboxes). */
function originOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    const o = new URL(header).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/**
 * Global CSRF guard (APP_GUARD): a cookie-authenticated unsafe request (POST/PUT/PATCH/DELETE)
 * must carry an `Origin` among `config.trustedOrigins`. Bearer requests are exempt: a browser
 * cannot attach that header cross-site without a CORS preflight.
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  private readonly trusted: Set<string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {
    this.trusted = new Set(
      config.trustedOrigins.map((o) => originOf(o)).filter((o): o is string => !!o),
    );
  }

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (SAFE_METHODS.has(req.method.toUpperCase())) return true;
    const origin = req.headers.origin;
    const strictRoute = this.reflector.getAllAndOverride<boolean | undefined>(CHECK_ORIGIN, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (strictRoute && origin !== undefined && !this.isTrusted(origin)) throw refused();
    if (tokenVia(req) !== 'cookie') return true;
    if (!this.isTrusted(origin)) throw refused();
    return true;
  }

  private isTrusted(origin: string | undefined): boolean {
    const o = originOf(origin);
    return o !== null && this.trusted.has(o);
  }
}

function refused(): AppError {
  return AppError.forbidden('Cross-site request refused');
}
