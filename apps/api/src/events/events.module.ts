import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus, InProcessEventBus, RedisEventBus } from './event-bus.js';

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
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): EventBus =>
        config.redisUrl
          ? new RedisEventBus(config.redisUrl, config.eventPrefix)
          : new InProcessEventBus(),
    },
    EventBusCloser,
  ],
  exports: [EventBus],
})
export class EventsModule {}
