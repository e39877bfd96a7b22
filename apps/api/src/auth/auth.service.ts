import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import {
  DEMO_USERNAME,
  isReservedUsername,
  type AuthSession,
  type DeleteUserRequest,
  type SessionResponse,
  type SignInRequest,
  type SignUpRequest,
  type UpdateUserRequest,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import type { UserEntity } from '../users/user.entity.js';
import { toAuthUser } from '../users/user.view.js';
import { UserConflictError, UsersRepository } from '../users/users.repository.js';
import type { AuthContext } from './auth-context.js';
import { EMAIL_VERIFICATION_TTL_MS, FRESH_SESSION_MS } from './auth.constants.js';
import { AuthMailer } from './auth.mailer.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import type { SessionEntity } from './session.entity.js';
import type { SessionClaims } from './session-jwt.strategy.js';
import { SessionsRepository } from './sessions.repository.js';

/** Where a sign-in came from, kept on the session row. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

/** A new session: its JWT (cookie or bearer) and when it expires. */
export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

const INVALID_CREDENTIALS = 'Invalid email or password';

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

function toAuthSession(s: SessionEntity): AuthSession {
  return {
    id: s.id,
    userId: s.userId,
    expiresAt: s.expiresAt.toISOString(),
    createdAt: s.createdAt.toISOString(),
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
  };
}

function conflict(err: UserConflictError): AppError {
  return AppError.conflict(
    err.field === 'email'
      ? 'An account with this email already exists'
      : 'This username is already taken',
  );
}

/** Profile route names (spec §2), file-like names and the demo broadcaster can never be usernames. */
function assertUsernameAllowed(username: string): void {
  if (isReservedUsername(username) || username === DEMO_USERNAME) {
    const message = 'This username is reserved';
    throw AppError.validation(`Invalid request: username: ${message}`, [
      { path: 'username', message },
    ]);
  }
}

@Injectable()
export class AuthService {
  private readonly logger = new Logger('AuthService');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UsersRepository) private readonly users: UsersRepository,
    @Inject(SessionsRepository) private readonly sessions: SessionsRepository,
    @Inject(JwtService) private readonly jwt: JwtService,
    @Inject(AuthMailer) private readonly mailer: AuthMailer,
  ) {}

  async signUp(
    body: SignUpRequest,
    client: ClientInfo,
  ): Promise<{ user: UserEntity } & IssuedSession> {
    assertUsernameAllowed(body.username);
    if (await this.users.findByEmail(body.email)) throw conflict(new UserConflictError('email'));
    if (await this.users.findByUsername(body.username))
      throw conflict(new UserConflictError('username'));
    const passwordHash = await hashPassword(body.password);
    let user: UserEntity;
    try {
      user = await this.users.create({
        email: body.email,
        username: body.username,
        name: body.name,
        passwordHash,
      });
    } catch (err) {
      if (err instanceof UserConflictError) throw conflict(err);
      throw err;
    }
    await this.sendVerification(user);
    return { user, ...(await this.issueSession(user.id, client)) };
  }

  async signIn(
    body: SignInRequest,
    client: ClientInfo,
  ): Promise<{ user: UserEntity } & IssuedSession> {
    const user = await this.users.findByEmail(body.email);
    // Unknown email: still pay for one scrypt, so timing does not tell which accounts exist.
    const ok = await verifyPassword(body.password, user?.passwordHash ?? (await dummyHash()));
    if (!user || !ok) throw AppError.unauthorized(INVALID_CREDENTIALS);
    return { user, ...(await this.issueSession(user.id, client)) };
  }

  async getSession(ctx: AuthContext): Promise<SessionResponse | null> {
    const [session, user] = await Promise.all([
      this.sessions.findById(ctx.sessionId),
      this.users.findById(ctx.userId),
    ]);
    if (!session || !user) return null;
    return { session: toAuthSession(session), user: toAuthUser(user) };
  }

  async signOut(ctx: AuthContext): Promise<void> {
    await this.sessions.delete(ctx.sessionId);
  }

  async updateUser(ctx: AuthContext, body: UpdateUserRequest): Promise<void> {
    if (body.name === undefined && body.username === undefined && body.image === undefined) {
      throw AppError.validation('Invalid request: no fields to update', [
        { path: '(body)', message: 'Give at least one of name, username, image' },
      ]);
    }
    if (body.username !== undefined) {
      assertUsernameAllowed(body.username);
      const holder = await this.users.findByUsername(body.username);
      if (holder && holder.id !== ctx.userId) throw conflict(new UserConflictError('username'));
    }
    try {
      await this.users.update(ctx.userId, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.username !== undefined ? { username: body.username } : {}),
        ...(body.image !== undefined ? { image: body.image } : {}),
      });
    } catch (err) {
      if (err instanceof UserConflictError) throw conflict(err);
      throw err;
    }
  }

  /**
   * Needs the password, or a fresh session (signed in within a day) like better-auth.
   * The database cascades to sessions, stations, allowed domains and tokens.
   */
  async deleteUser(ctx: AuthContext, body: DeleteUserRequest): Promise<void> {
    const user = await this.users.findById(ctx.userId);
    if (!user) throw AppError.unauthorized();
    if (body.password !== undefined) {
      if (!(await verifyPassword(body.password, user.passwordHash))) {
        const message = 'Invalid password';
        throw AppError.validation(`Invalid request: password: ${message}`, [
          { path: 'password', message },
        ]);
      }
    } else {
      const session = await this.sessions.findById(ctx.sessionId);
      if (!session || Date.now() - session.createdAt.getTime() > FRESH_SESSION_MS) {
        throw AppError.forbidden('Sign in again or give your password to delete your account');
      }
    }
    await this.users.delete(user.id);
  }

  async verifyEmail(token: string): Promise<void> {
    const userId = await this.sessions.consumeVerificationToken(sha256(token));
    if (!userId) {
      const message = 'Invalid or expired token';
      throw AppError.validation(message, [{ path: 'token', message }]);
    }
    await this.users.update(userId, { emailVerified: true });
  }

  async revokeSessions(ctx: AuthContext): Promise<void> {
    await this.sessions.deleteAllOf(ctx.userId);
  }

  async revokeOtherSessions(ctx: AuthContext): Promise<void> {
    await this.sessions.deleteAllOf(ctx.userId, ctx.sessionId);
  }

  private async issueSession(userId: string, client: ClientInfo): Promise<IssuedSession> {
    await this.sessions.deleteExpiredOf(userId);
    const expiresAt = new Date(Date.now() + this.config.sessionTtlMs);
    const session = await this.sessions.create({
      userId,
      expiresAt,
      ipAddress: client.ip?.slice(0, 64) ?? null,
      userAgent: client.userAgent?.slice(0, 512) ?? null,
    });
    const claims: SessionClaims = {
      sub: userId,
      sid: session.id,
      exp: Math.floor(expiresAt.getTime() / 1000),
    };
    return { token: await this.jwt.signAsync(claims), expiresAt };
  }

  /** 32 random bytes to the user, only their SHA-256 in the database. Mail failures never fail sign-up. */
  private async sendVerification(user: UserEntity): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    await this.sessions.createVerificationToken(
      user.id,
      sha256(token),
      new Date(Date.now() + EMAIL_VERIFICATION_TTL_MS),
    );
    const url = `${this.config.publicUrl}/api/auth/verify-email?token=${encodeURIComponent(token)}`;
    this.mailer.sendVerification(user.email, url).catch((err: unknown) => {
      this.logger.error(`Could not send the verification email: ${(err as Error).message}`);
    });
  }
}
