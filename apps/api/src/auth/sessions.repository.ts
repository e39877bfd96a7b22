import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Not, type Repository } from 'typeorm';
import { EmailVerificationTokenEntity } from './email-verification-token.entity.js';
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

  async createVerificationToken(userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.tokens.insert({ userId, tokenHash, expiresAt });
  }

  /** Consumes a token (single use): the user id, or null when unknown or expired. */
  async consumeVerificationToken(tokenHash: string, now = new Date()): Promise<string | null> {
    // TypeORM answers a DELETE … RETURNING with [rows, affectedCount].
    const [rows] = (await this.tokens.query(
      `DELETE FROM email_verification_tokens WHERE token_hash = $1 RETURNING user_id, expires_at`,
      [tokenHash],
    )) as [{ user_id: string; expires_at: Date }[], number];
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= now.getTime()) return null;
    return row.user_id;
  }
}
