import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisService } from './redis.service.js';

@Global()
@Module({})
export class RedisModule {
  /** `client` is connected before the app is built (see `connectRedis`), so a bad URL fails fast. */
  static forRoot(client: Redis | null): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: RedisService, useValue: new RedisService(client) }],
      exports: [RedisService],
    };
  }
}
