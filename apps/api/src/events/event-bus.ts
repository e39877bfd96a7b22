import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { EventMap, EventName } from '@radiobroadcaster/contracts';
import { Redis } from 'ioredis';

/** `local`: the event was published by this process (so this node acts on it for everyone). */
export type EventHandler<K extends EventName> = (
  payload: EventMap[K],
  meta: { local: boolean },
) => void;

/** One typed event map for the whole product; Redis pub/sub across nodes or in-process. */
export abstract class EventBus {
  abstract publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void>;
  abstract subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void;
  abstract ping(): Promise<boolean>;
  abstract close(): Promise<void>;
  /** How many times the bus lost and regained its broker connection. */
  reconnects = 0;
}

const LOCAL = { local: true } as const;
const REMOTE = { local: false } as const;

export class InProcessEventBus extends EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    // Asynchronous like the Redis bus, so callers never depend on re-entrancy.
    queueMicrotask(() => this.emitter.emit(name, payload, LOCAL));
  }

  subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    this.emitter.on(name, handler);
    return () => this.emitter.off(name, handler);
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class RedisEventBus extends EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly subscribed = new Set<string>();
  private readonly nodeId = randomUUID();

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    super();
    const opts = { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true };
    this.pub = new Redis(url, opts);
    this.sub = new Redis(url, opts);
    for (const client of [this.pub, this.sub]) {
      client.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
    }
    this.sub.on('reconnecting', () => {
      this.reconnects++;
    });
    this.sub.on('message', (channel: string, message: string) => {
      const name = channel.slice(this.prefix.length + 1);
      try {
        const envelope = JSON.parse(message) as { o: string; p: unknown };
        this.local.emit(name, envelope.p, envelope.o === this.nodeId ? LOCAL : REMOTE);
      } catch (err) {
        this.logger.warn(`dropped a malformed event on ${channel}: ${(err as Error).message}`);
      }
    });
  }

  private channel(name: string): string {
    return `${this.prefix}:${name}`;
  }

  async publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    await this.pub.publish(this.channel(name), JSON.stringify({ o: this.nodeId, p: payload }));
  }

  subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    if (!this.subscribed.has(name)) {
      this.subscribed.add(name);
      this.sub.subscribe(this.channel(name)).catch((err: Error) => {
        this.subscribed.delete(name);
        this.logger.error(`subscribe ${name}: ${err.message}`);
      });
    }
    this.local.on(name, handler);
    return () => this.local.off(name, handler);
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.pub.ping()) === 'PONG' && this.sub.status === 'ready';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
