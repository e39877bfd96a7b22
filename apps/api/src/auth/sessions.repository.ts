import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Not, type Repository } from 'typeorm';
import {
  type AccountTokenPurpose,
  EmailVerificationTokenEntity,
} from './email-verification-token.entity.js';
import { SessionEntity } from './session.entity.js';

/** Session rows and email verification tokens. */
@Injectable()
export class SessionsRepository {
  constructor(
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(EmailVerificationTokenEntity)
    private readonly tokens: Repository<EmailVerificationTokenEntity>,
  ) {}

  create(
    data: Pick<SessionEntity, 'userId' | 'expiresAt' | 'ipAddress' | 'userAgent'>,
  ): Promise<SessionEntity> {
    return this.sessions.save(this.sessions.create(data));
  }

  findById(id: string): Promise<SessionEntity | null> {
    return this.sessions.findOne({ where: { id } });
  }

  /** The session's owner's username when the session exists, belongs to `userId` and has not expired. */
  async findActive(id: string, userId: string): Promise<{ username: string } | null> {
    const rows = (await this.sessions.query(
      `SELECT u.username FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $1 AND s.user_id = $2 AND s.expires_at > now()`,
      [id, userId],
    )) as { username: string }[];
    return rows[0] ?? null;
  }

  async delete(id: string): Promise<void> {
    await this.sessions.delete({ id });
  }

  async deleteAllOf(userId: string, exceptId?: string): Promise<void> {
    await this.sessions.delete(exceptId ? { userId, id: Not(exceptId) } : { userId });
  }

  /** Housekeeping on sign-in: a user's expired rows go (they are refused anyway). */
  async deleteExpiredOf(userId: string, now = new Date()): Promise<void> {
    await this.sessions.delete({ userId, expiresAt: LessThan(now) });
  }

  /** A new emailed link for `purpose`; earlier unused links of the same purpose stop working. */
  async createAccountToken(
    userId: string,
    purpose: AccountTokenPurpose,
    tokenHash: string,
    expiresAt: Date,
    email: string | null = null,
  ): Promise<void> {
    await this.tokens.delete({ userId, purpose });
    await this.tokens.insert({ userId, purpose, tokenHash, expiresAt, email });
  }

  /** The user of a live link, without using it up (to check a request before consuming it). */
  async peekAccountToken(
    tokenHash: string,
    purpose: AccountTokenPurpose,
    now = new Date(),
  ): Promise<string | null> {
    const row = await this.tokens.findOne({ where: { tokenHash, purpose } });
    return row && row.expiresAt.getTime() > now.getTime() ? row.userId : null;
  }

  /**
   * Consumes a link (single use): its user and, for change-email, the new address; null when
   * unknown, of another purpose, or expired.
   */
  async consumeAccountToken(
    tokenHash: string,
    purposes: readonly AccountTokenPurpose[],
    now = new Date(),
  ): Promise<{ userId: string; purpose: AccountTokenPurpose; email: string | null } | null> {
    // TypeORM answers a DELETE … RETURNING with [rows, affectedCount].
    const [rows] = (await this.tokens.query(
      `DELETE FROM email_verification_tokens WHERE token_hash = $1 AND purpose = ANY($2)
        RETURNING user_id, purpose, email, expires_at`,
      [tokenHash, purposes],
    )) as [
      { user_id: string; purpose: AccountTokenPurpose; email: string | null; expires_at: Date }[],
      number,
    ];
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= now.getTime()) return null;
    return { userId: row.user_id, purpose: row.purpose, email: row.email };
  }
}
