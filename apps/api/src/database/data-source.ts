import type { DataSourceOptions } from 'typeorm';
import { EmailVerificationTokenEntity } from '../auth/email-verification-token.entity.js';
import { SessionEntity } from '../auth/session.entity.js';
import { AllowedDomainEntity } from '../domains/allowed-domain.entity.js';
import { StationEntity } from '../stations/station.entity.js';
import { UserEntity } from '../users/user.entity.js';
import { Initial1763850000000 } from './migrations/1763850000000-initial.js';

export const ENTITIES = [
  UserEntity,
  SessionEntity,
  EmailVerificationTokenEntity,
  StationEntity,
  AllowedDomainEntity,
];
export const MIGRATIONS = [Initial1763850000000];

/** The one set of TypeORM options for real PostgreSQL and embedded PGlite alike. */
export function dataSourceOptions(url: string, embedded: boolean): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    // pglite-socket serialises everything through one PGlite session: one pooled connection.
    extra: embedded ? { max: 1 } : { max: 10 },
    logging: ['error', 'migration'],
  };
}
