import type { DataSourceOptions } from 'typeorm';
import { TypeOrmPinoLogger } from '../common/logger.js';
import { EmailVerificationTokenEntity } from '../auth/email-verification-token.entity.js';
import { SessionEntity } from '../auth/session.entity.js';
import { AllowedDomainEntity } from '../domains/allowed-domain.entity.js';
import { StationEntity } from '../stations/station.entity.js';
import { UserEntity } from '../users/user.entity.js';
import { RadioSettingsEntity } from '../radio/radio-settings.entity.js';
import { Radio1764000000000 } from './migrations/1764000000000-radio.js';
import { WebhookAttemptEntity } from '../webhooks/webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from '../webhooks/webhook-delivery.entity.js';
import { WebhookEntity } from '../webhooks/webhook.entity.js';
import { Initial1763850000000 } from './migrations/1763850000000-initial.js';
import { Webhooks1795442764487 } from './migrations/1795442764487-webhooks.js';
import { Stats1795445181007 } from './migrations/1795445181007-stats.js';
import { Recordings1795900000000 } from './migrations/1795900000000-recordings.js';
import { RecordingStorage1796000000000 } from './migrations/1796000000000-recording-storage.js';
import { OutboundPaused1796100000000 } from './migrations/1796100000000-outbound-paused.js';
import { PublicStreamDefault1796150000000 } from './migrations/1796150000000-public-stream-default.js';
import { Shows1796200000000 } from './migrations/1796200000000-shows.js';
import { PrivateStations1797000000000 } from './migrations/1797000000000-private-stations.js';
import { Chat1797100000000 } from './migrations/1797100000000-chat.js';
import { Follow1797200000000 } from './migrations/1797200000000-follow.js';
import { PodcastEpisodes1797200000001 } from './migrations/1797200000001-podcast-episodes.js';
import { ForgetDeletedListeners1797300000000 } from './migrations/1797300000000-forget-deleted-listeners.js';
import { AllowedDomainsCap1795500000000 } from './migrations/1795500000000-allowed-domains-cap.js';
import { StationReconnecting1795600000000 } from './migrations/1795600000000-station-reconnecting.js';
import { EventOutbox1795700000000 } from './migrations/1795700000000-event-outbox.js';
import { AccountTokens1795700000001 } from './migrations/1795700000001-account-tokens.js';
import { StationIdentity1795871234567 } from './migrations/1795871234567-station-identity.js';
import { ImageEntity } from '../images/image.entity.js';
import { StationRelayEntity } from '../relays/relay.entity.js';
import { ShowEntity } from '../shows/show.entity.js';

export const ENTITIES = [
  UserEntity,
  SessionEntity,
  EmailVerificationTokenEntity,
  StationEntity,
  AllowedDomainEntity,
  RadioSettingsEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
  ImageEntity,
  StationRelayEntity,
  ShowEntity,
];
export const MIGRATIONS = [
  Initial1763850000000,
  Radio1764000000000,
  Webhooks1795442764487,
  Stats1795445181007,
  AllowedDomainsCap1795500000000,
  StationReconnecting1795600000000,
  EventOutbox1795700000000,
  AccountTokens1795700000001,
  StationIdentity1795871234567,
  Recordings1795900000000,
  RecordingStorage1796000000000,
  OutboundPaused1796100000000,
  PublicStreamDefault1796150000000,
  Shows1796200000000,
  PrivateStations1797000000000,
  Chat1797100000000,
  Follow1797200000000,
  PodcastEpisodes1797200000001,
  ForgetDeletedListeners1797300000000,
];

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
    logging: ['error', 'migration', 'warn'],
    logger: new TypeOrmPinoLogger(),
  };
}
