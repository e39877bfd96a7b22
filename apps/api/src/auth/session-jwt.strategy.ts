import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passport from 'passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import type { AuthContext } from './auth-context.js';
import { JWT_STRATEGY, SESSION_COOKIE } from './auth.constants.js';
import { SessionsRepository } from './sessions.repository.js';

/** The JWT's claims: `sub` the user, `sid` the session row, `exp` the session's expiry. */
export interface SessionClaims {
  sub: string;
  sid: string;
  exp: number;
}

const fromBearer = ExtractJwt.fromAuthHeaderAsBearerToken();
const fromCookie = (req: Request): string | null => {
  const v = (req.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE];
  return typeof v === 'string' && v ? v : null;
};

/** Bearer header first (apps, CLI), then the browser cookie. */
export function tokenVia(req: Request): 'bearer' | 'cookie' | null {
  return fromBearer(req) ? 'bearer' : fromCookie(req) ? 'cookie' : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Each app gets its own passport instance: the global one would let the last app built in a process
// (tests start several) verify every app's tokens with its own secret and database.
const instances = new WeakMap<object, passport.Authenticator>();

/**
 * Verifies the session JWT (signature and `exp`) and then loads the session row on every request,
 * so a revoked (deleted) or expired session is refused on its very next request.
 */
@Injectable()
export class SessionJwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(SessionsRepository) private readonly sessions: SessionsRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([fromBearer, fromCookie]),
      secretOrKey: config.authSecret,
      algorithms: ['HS256'],
      passReqToCallback: true,
    });
  }

  /** Called by the `PassportStrategy` mixin (during `super()`) to register this strategy. */
  getPassportInstance(): passport.Authenticator {
    let p = instances.get(this);
    if (!p) {
      p = new passport.Passport();
      instances.set(this, p);
    }
    return p;
  }

  async validate(req: Request, payload: Partial<SessionClaims>): Promise<AuthContext | false> {
    const { sub, sid } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || !UUID.test(sub) || !UUID.test(sid))
      return false;
    const found = await this.sessions.findActive(sid, sub);
    if (!found) return false;
    return {
      userId: sub,
      sessionId: sid,
      username: found.username,
      via: tokenVia(req) ?? 'cookie',
    };
  }

  /** The caller's context, or null when there is no valid session. */
  authenticateRequest(req: Request, res: unknown): Promise<AuthContext | null> {
    return new Promise((resolve, reject) => {
      const middleware = this.getPassportInstance().authenticate(
        JWT_STRATEGY,
        { session: false },
        (err: unknown, user: AuthContext | false | undefined) =>
          err ? reject(err) : resolve(user || null),
      ) as (req: unknown, res: unknown, next: (err?: unknown) => void) => void;
      middleware(req, res, (err?: unknown) => (err ? reject(err) : resolve(null)));
    });
  }
}
