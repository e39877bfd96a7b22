import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';

/** socket.io across API nodes: a room broadcast on one node reaches clients on every node. */
export class RedisIoAdapter extends IoAdapter {
  private adapterConstructor: ReturnType<typeof createAdapter> | undefined;
  private clients: Redis[] = [];

  constructor(
    app: INestApplicationContext,
    private readonly url: string,
    private readonly prefix: string,
  ) {
    super(app);
  }

  async connectToRedis(): Promise<void> {
    const pub = new Redis(this.url, { lazyConnect: true });
    const sub = pub.duplicate();
    await Promise.all([pub.connect(), sub.connect()]);
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
    for (const c of this.clients) c.disconnect();
  }
}
