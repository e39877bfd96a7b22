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
  type VerifyEmailResponse,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import type { UserEntity } from '../users/user.entity.js';
import { toAuthUser } from '../users/user.view.js';
import { UserConflictError, UsersRepository } from '../users/users.repository.js';
import type { AuthContext } from './auth-context.js';
import {
  EMAIL_VERIFICATION_TTL_MS,
  FRESH_SESSION_MS,
  PASSWORD_RESET_TTL_MS,
} from './auth.constants.js';
import type { AccountTokenPurpose } from './email-verification-token.entity.js';
import { AuthMailer } from './auth.mailer.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './password.js';
import { assertStrongPassword } from './password-policy.js';
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

/** Route names, file-like names and the demo broadcaster can never be usernames: their pages would show something else. */
function assertUsernameAllowed(username: string): void {
  if (isReservedUsername(username) || username === DEMO_USERNAME) {
    const message = 'This username is reserved';
    throw AppError.validation(`Invalid request: username: ${message}`, [
      { path: 'username', message },
    ]);
  }
}

function invalidLink(): AppError {
  const message = 'This link is invalid or has expired';
  return AppError.validation(message, [{ path: 'token', message }]);
}

/** The same refusal, about another field of the request. */
function renameField(err: unknown, from: string, to: string): unknown {
  if (!(err instanceof AppError) || !err.fields) return err;
  return new AppError(
    err.tag,
    err.message.replace(`: ${from}:`, `: ${to}:`),
    err.fields.map((f) => (f.path === from ? { ...f, path: to } : f)),
    err.headers,
  );
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
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  async signUp(
    body: SignUpRequest,
    client: ClientInfo,
  ): Promise<{ user: UserEntity } & IssuedSession> {
    assertUsernameAllowed(body.username);
    if (await this.users.findByEmail(body.email)) throw conflict(new UserConflictError('email'));
    if (await this.users.findByUsername(body.username))
      throw conflict(new UserConflictError('username'));
    await assertStrongPassword(body.password, body);
    const passwordHash = await hashPassword(body.password, this.config.passwordScrypt);
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
    const ok = await verifyPassword(
      body.password,
      user?.passwordHash ?? (await dummyHash(this.config.passwordScrypt)),
    );
    if (!user || !ok) throw AppError.unauthorized(INVALID_CREDENTIALS);
    if (needsRehash(user.passwordHash, this.config.passwordScrypt)) {
      // The password is at hand only now: move the stored hash to the current cost.
      const passwordHash = await hashPassword(body.password, this.config.passwordScrypt);
      await this.users.update(user.id, { passwordHash });
    }
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
    // Stations show their broadcaster's name and username.
    if (body.name !== undefined || body.username !== undefined)
      await this.bus.publish('user.updated', { userId: ctx.userId });
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
    await this.bus.publish('user.deleted', { userId: user.id });
  }

  /** A verification or new-address link: the address is verified (and, for a new one, now the account's). */
  async verifyEmail(token: string): Promise<VerifyEmailResponse> {
    const link = await this.sessions.consumeAccountToken(sha256(token), [
      'verify-email',
      'change-email',
    ]);
    if (!link) throw invalidLink();
    const user = await this.users.findById(link.userId);
    if (!user) throw invalidLink();
    if (link.purpose === 'change-email' && link.email) {
      try {
        await this.users.update(user.id, { email: link.email, emailVerified: true });
      } catch (err) {
        if (err instanceof UserConflictError) throw conflict(err);
        throw err;
      }
      await this.bus.publish('user.updated', { userId: user.id });
      return { status: true, kind: 'change-email', email: link.email };
    }
    await this.users.update(user.id, { emailVerified: true });
    return { status: true, kind: 'verify-email', email: user.email };
  }

  /** A new verification link for the signed-in user (409 when already verified). */
  async resendVerification(ctx: AuthContext): Promise<void> {
    const user = await this.users.findById(ctx.userId);
    if (!user) throw AppError.unauthorized();
    if (user.emailVerified) throw AppError.conflict('Your email address is already verified');
    await this.sendVerification(user);
  }

  /** Mails a reset link when the address has an account; answers the same either way. */
  async requestPasswordReset(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const token = await this.newLink(user.id, 'reset-password', PASSWORD_RESET_TTL_MS);
    this.mailLater(
      this.mailer.sendPasswordReset(user.email, this.pageUrl('/reset-password', token)),
    );
  }

  /** Sets a new password from a reset link (single use) and ends every session of the account. */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    // A refused password leaves the link usable for the next try.
    const userId = await this.sessions.peekAccountToken(sha256(token), 'reset-password');
    const owner = userId ? await this.users.findById(userId) : null;
    if (!owner) throw invalidLink();
    try {
      await assertStrongPassword(newPassword, owner);
    } catch (err) {
      throw renameField(err, 'password', 'newPassword');
    }
    const link = await this.sessions.consumeAccountToken(sha256(token), ['reset-password']);
    const user = link?.userId === owner.id ? owner : null;
    if (!user) throw invalidLink();
    const passwordHash = await hashPassword(newPassword, this.config.passwordScrypt);
    // Opening the mailed link proved the address too.
    await this.users.update(user.id, { passwordHash, emailVerified: true });
    await this.sessions.deleteAllOf(user.id);
  }

  async changePassword(
    ctx: AuthContext,
    body: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean },
  ): Promise<void> {
    const user = await this.users.findById(ctx.userId);
    if (!user) throw AppError.unauthorized();
    if (!(await verifyPassword(body.currentPassword, user.passwordHash))) {
      const message = 'This is not your current password.';
      throw AppError.validation(`Invalid request: currentPassword: ${message}`, [
        { path: 'currentPassword', message },
      ]);
    }
    try {
      await assertStrongPassword(body.newPassword, user);
    } catch (err) {
      throw renameField(err, 'password', 'newPassword');
    }
    const passwordHash = await hashPassword(body.newPassword, this.config.passwordScrypt);
    await this.users.update(user.id, { passwordHash });
    if (body.revokeOtherSessions !== false) await this.sessions.deleteAllOf(user.id, ctx.sessionId);
  }

  /** Mails a confirmation link to the new address; the account keeps its address until opened. */
  async changeEmail(ctx: AuthContext, newEmail: string): Promise<void> {
    const user = await this.users.findById(ctx.userId);
    if (!user) throw AppError.unauthorized();
    if (user.email === newEmail) {
      const message = 'This is already your email address.';
      throw AppError.validation(`Invalid request: newEmail: ${message}`, [
        { path: 'newEmail', message },
      ]);
    }
    if (await this.users.findByEmail(newEmail)) throw conflict(new UserConflictError('email'));
    const token = await this.newLink(user.id, 'change-email', EMAIL_VERIFICATION_TTL_MS, newEmail);
    this.mailLater(this.mailer.sendEmailChange(newEmail, this.pageUrl('/verify-email', token)));
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

  private async sendVerification(user: UserEntity): Promise<void> {
    const token = await this.newLink(user.id, 'verify-email', EMAIL_VERIFICATION_TTL_MS);
    this.mailLater(this.mailer.sendVerification(user.email, this.pageUrl('/verify-email', token)));
  }

  /** 32 random bytes to the user, only their SHA-256 in the database; replaces earlier links. */
  private async newLink(
    userId: string,
    purpose: AccountTokenPurpose,
    ttlMs: number,
    email: string | null = null,
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.sessions.createAccountToken(
      userId,
      purpose,
      sha256(token),
      new Date(Date.now() + ttlMs),
      email,
    );
    return token;
  }

  /** The site's page for a mailed link: the page calls the API, so mail scanners do not use it up. */
  private pageUrl(path: string, token: string): string {
    return `${this.config.publicUrl}${path}?token=${encodeURIComponent(token)}`;
  }

  /** Mail goes out in the background: a slow or failing SMTP server never fails the request. */
  private mailLater(sending: Promise<void>): void {
    sending.catch((err: unknown) => {
      this.logger.error(`Could not send account mail: ${(err as Error).message}`);
    });
  }
}
