import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RedisService } from '../redis/redis.service.js';
import { EventBus, InProcessEventBus, RedisEventBus } from './event-bus.js';
import { PgEventOutbox } from './event-outbox.js';

/**
 * The bus's connections fail a command at once while Redis is away (the outbox or the next read
 * takes over) instead of queueing it, or resending one that was under way, after a reconnect.
 */
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, autoResendUnfulfilledCommands: false };

@Injectable()
class EventBusCloser implements OnApplicationShutdown {
  constructor(@Inject(EventBus) private readonly bus: EventBus) {}
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: EventBus,
      inject: [APP_CONFIG, RedisService, DataSource],
      useFactory: (config: AppConfig, redis: RedisService, db: DataSource): EventBus =>
        redis.client
          ? new RedisEventBus(
              redis.duplicate('events-pub', FAIL_FAST)!,
              redis.duplicate('events-sub', FAIL_FAST)!,
              config.redisPrefix,
              new PgEventOutbox(db),
            )
          : new InProcessEventBus(),
    },
    EventBusCloser,
  ],
  exports: [EventBus],
})
export class EventsModule {}
