import type { AuthUser } from '@radiobroadcaster/contracts';
import type { UserEntity } from './user.entity.js';

/** The public shape of the signed-in user (never the password hash). */
export function toAuthUser(u: UserEntity): AuthUser {
  return {
    id: u.id,
    email: u.email,
    emailVerified: u.emailVerified,
    name: u.name,
    username: u.username,
    image: u.image,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}
