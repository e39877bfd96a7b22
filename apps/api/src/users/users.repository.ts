import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, type Repository } from 'typeorm';
import { UserEntity } from './user.entity.js';

/** Which unique column a write collided with. */
export class UserConflictError extends Error {
  constructor(readonly field: 'email' | 'username') {
    super(`${field} taken`);
  }
}

/** Maps a unique-index violation on `users` to the column it names; rethrows anything else. */
function mapUniqueViolation(err: unknown): never {
  if (err instanceof QueryFailedError) {
    const d = err.driverError as { code?: string; constraint?: string };
    if (d.code === '23505' && d.constraint === 'users_email_key')
      throw new UserConflictError('email');
    if (d.code === '23505' && d.constraint === 'users_username_key')
      throw new UserConflictError('username');
  }
  throw err;
}

/** All user I/O. Emails and usernames are stored lowercased. */
@Injectable()
export class UsersRepository {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  findById(id: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id } });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { email: email.toLowerCase() } });
  }

  findByUsername(username: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { username: username.toLowerCase() } });
  }

  /** @throws UserConflictError when the email or username is taken. */
  async create(
    data: Pick<UserEntity, 'email' | 'username' | 'name' | 'passwordHash'>,
  ): Promise<UserEntity> {
    try {
      return await this.users.save(
        this.users.create({ ...data, emailVerified: false, image: null }),
      );
    } catch (err) {
      return mapUniqueViolation(err);
    }
  }

  /** @throws UserConflictError when a new username is taken. */
  async update(
    id: string,
    patch: Partial<
      Pick<UserEntity, 'name' | 'username' | 'image' | 'emailVerified' | 'passwordHash' | 'email'>
    >,
  ): Promise<void> {
    try {
      await this.users.update({ id }, patch);
    } catch (err) {
      mapUniqueViolation(err);
    }
  }

  /** Foreign keys cascade to sessions, stations, allowed domains and verification tokens. */
  async delete(id: string): Promise<void> {
    await this.users.delete({ id });
  }
}
