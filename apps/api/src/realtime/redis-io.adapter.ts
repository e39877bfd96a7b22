import { type INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import { quitRedis, type RedisService } from '../redis/redis.service.js';

/** socket.io across API nodes: a room broadcast on one node reaches clients on every node. */
export class RedisIoAdapter extends IoAdapter {
  private adapterConstructor: ReturnType<typeof createAdapter> | undefined;
  private clients: Redis[] = [];

  constructor(
    app: INestApplicationContext,
    private readonly redis: RedisService,
    private readonly prefix: string,
  ) {
    super(app);
  }

  async connectToRedis(): Promise<void> {
    const pub = this.redis.duplicate('socketio-pub')!;
    const sub = this.redis.duplicate('socketio-sub')!;
    // The adapter does not await its publishes: during a Redis outage each would be an unhandled
    // rejection, which ends the process. A push that cannot cross nodes is dropped (clients poll).
    const publish = pub.publish.bind(pub);
    const logger = new Logger('RedisIoAdapter');
    pub.publish = ((...args: Parameters<typeof publish>) =>
      publish(...args).catch((err: Error) => {
        logger.warn(`socket.io broadcast not sent to other nodes: ${err.message}`);
        return 0;
      })) as typeof pub.publish;
    await Promise.all([pub.ping(), sub.ping()]);
    this.clients = [pub, sub];
    this.adapterConstructor = createAdapter(pub, sub, { key: `${this.prefix}:socket.io` });
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server = super.createIOServer(port, options);
    if (this.adapterConstructor) server.adapter(this.adapterConstructor);
    return server;
  }

  override async dispose(): Promise<void> {
    await super.dispose();
    await Promise.all(this.clients.map((c) => quitRedis(c)));
  }
}
