import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/app-error.js';
import type { AuthContext } from './auth-context.js';
import { SessionJwtStrategy } from './session-jwt.strategy.js';

type AuthedRequest = Request & { user?: AuthContext };

/** Requires a valid session (cookie or bearer): 401 Unauthorized 'Authentication required' otherwise. */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(@Inject(SessionJwtStrategy) private readonly strategy: SessionJwtStrategy) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const user = await this.strategy.authenticateRequest(req, context.switchToHttp().getResponse());
    if (!user) throw AppError.unauthorized();
    req.user = user;
    return true;
  }
}

/** Never refuses; sets the caller's context when a valid session is present. */
@Injectable()
export class OptionalSessionGuard implements CanActivate {
  constructor(@Inject(SessionJwtStrategy) private readonly strategy: SessionJwtStrategy) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const user = await this.strategy.authenticateRequest(req, context.switchToHttp().getResponse());
    if (user) req.user = user;
    else delete req.user;
    return true;
  }
}
