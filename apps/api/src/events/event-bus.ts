import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { EventMap, EventName } from '@radiobroadcaster/contracts';
import type { Redis } from 'ioredis';
import { withTimeout } from '../common/with-timeout.js';
import type { Envelope, EventOutbox } from './event-outbox.js';

/** `local`: the event was published by this process (so this node acts on it for everyone). */
export type EventHandler<K extends EventName> = (
  payload: EventMap[K],
  meta: { local: boolean },
) => void;

/** One typed event map for the whole product; Redis pub/sub across nodes or in-process. */
export abstract class EventBus {
  abstract publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void>;
  abstract subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void;
  /** Whether the broker answers, and how many events wait for it. */
  abstract health(): Promise<BusHealth>;
  abstract close(): Promise<void>;
  /** How many times the bus lost and regained its broker connection. */
  reconnects = 0;
  /** False while events may be getting lost (the broker connection is down or resubscribing). */
  abstract readonly synced: boolean;
  private readonly resyncHandlers = new Set<() => void>();

  /** `handler` runs when the bus is back after a gap in which events may have been missed. */
  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  protected resynced(): void {
    for (const h of this.resyncHandlers) h();
  }
}

export interface BusHealth {
  up: boolean;
  message?: string;
  pending: number;
}

const LOCAL = { local: true } as const;
const REMOTE = { local: false } as const;

export class InProcessEventBus extends EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  readonly synced = true;

  async publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    // Asynchronous like the Redis bus, so callers never depend on re-entrancy.
    queueMicrotask(() => this.emitter.emit(name, payload, LOCAL));
  }

  subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    this.emitter.on(name, handler);
    return () => this.emitter.off(name, handler);
  }

  async health(): Promise<BusHealth> {
    return { up: true, pending: 0 };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** A publish that Redis has not confirmed by then goes to the outbox instead. */
const PUBLISH_TIMEOUT_MS = 1000;
/** How often the outbox is drained while events wait, and otherwise (rows a stopped node left). */
const DRAIN_BACKLOG_MS = 1000;
const DRAIN_IDLE_MS = 5000;
/**
 * Once Redis answers again, the outbox waits this long before sending: pub/sub keeps nothing for a
 * subscriber that is not back yet, and every node's subscriber reconnects within ioredis's longest
 * retry delay (2 s). Sent at once, an event could reach only the nodes that happened to be back.
 */
const RECONNECT_GRACE_MS = 2500;
/** Event ids remembered to drop a repeat (an outbox event resent after a crash, or delivered here first). */
const SEEN_MAX = 10_000;

/**
 * Redis pub/sub across nodes. While Redis is unreachable, a publish still succeeds: this node's
 * subscribers get the event at once, and it waits in the durable outbox, in order, until Redis
 * takes it; every event carries an id so no subscriber sees it twice.
 */
export class RedisEventBus extends EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly subscribed = new Set<string>();
  private readonly nodeId = randomUUID();
  private readonly seen = new Set<string>();
  private lost = false;
  private subscribing = 0;
  /** Events of this node are in the outbox: later ones follow them there, to keep the order. */
  private backlog = false;
  private draining: Promise<void> | null = null;
  /** Not before then: the other nodes' subscribers may still be reconnecting. */
  private drainFrom = 0;
  private drainTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `pub` and `sub`: connections of their own (a subscribed connection can only subscribe). */
  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly prefix: string,
    private readonly outbox: EventOutbox,
  ) {
    super();
    this.pub.on('ready', () => {
      this.drainFrom = Date.now() + RECONNECT_GRACE_MS;
      this.scheduleDrain(RECONNECT_GRACE_MS);
    });
    this.scheduleDrain(DRAIN_IDLE_MS);
    this.sub.on('reconnecting', () => {
      this.reconnects++;
    });
    this.sub.on('close', () => {
      this.lost = true;
    });
    // ioredis emits 'ready' before it resubscribes: subscribing again resolves after that.
    this.sub.on('ready', () => {
      if (!this.lost) return;
      const channels = [...this.subscribed].map((n) => this.channel(n));
      const resubscribed = channels.length ? this.sub.subscribe(...channels) : Promise.resolve();
      resubscribed.then(
        () => {
          if (this.sub.status !== 'ready') return;
          this.lost = false;
          this.resynced();
        },
        (err: Error) => this.logger.warn(`resubscribe: ${err.message}`),
      );
    });
    this.sub.on('message', (channel: string, message: string) => {
      const name = channel.slice(this.prefix.length + 1);
      try {
        const envelope = JSON.parse(message) as Envelope;
        if (envelope.i && !this.remember(envelope.i)) return;
        this.local.emit(name, envelope.p, envelope.o === this.nodeId ? LOCAL : REMOTE);
      } catch (err) {
        this.logger.warn(`dropped a malformed event on ${channel}: ${(err as Error).message}`);
      }
    });
  }

  get synced(): boolean {
    return !this.lost && this.subscribing === 0 && this.sub.status === 'ready';
  }

  private channel(name: string): string {
    return `${this.prefix}:${name}`;
  }

  async publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    const envelope: Envelope = { i: randomUUID(), o: this.nodeId, p: payload };
    if (!this.backlog && this.pub.status === 'ready') {
      try {
        await withTimeout(
          this.pub.publish(this.channel(name), JSON.stringify(envelope)),
          PUBLISH_TIMEOUT_MS,
          'publish',
        );
        return;
      } catch (err) {
        this.logger.warn(`Redis did not take ${name} (${(err as Error).message}); queued`);
      }
    }
    await this.defer(name, envelope);
  }

  /** The write that caused the event succeeded: never fail the caller because Redis is away. */
  private async defer(name: EventName, envelope: Envelope): Promise<void> {
    this.backlog = true;
    this.remember(envelope.i);
    this.local.emit(name, envelope.p, LOCAL);
    try {
      await this.outbox.add({ name, envelope });
    } catch (err) {
      this.logger.error(
        `event ${name} lost: neither Redis nor the outbox took it (${(err as Error).message})`,
      );
    }
    this.scheduleDrain(DRAIN_BACKLOG_MS);
  }

  private scheduleDrain(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.drainTimer);
    this.drainTimer = setTimeout(() => void this.drain(), ms);
    this.drainTimer.unref();
  }

  /** Sends what waits in the outbox (this node's and any other's) once Redis answers. */
  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        if (this.pub.status === 'ready' && Date.now() >= this.drainFrom) {
          while (!this.closed) {
            const sent = await this.outbox.drain(({ name, envelope }) =>
              withTimeout(
                this.pub.publish(this.channel(name), JSON.stringify(envelope)),
                PUBLISH_TIMEOUT_MS,
                'publish',
              ).then(() => undefined),
            );
            if (sent === 0) break;
            this.logger.log(`delivered ${sent} queued events`);
          }
          if (!this.closed && (await this.outbox.count()) === 0) this.backlog = false;
        }
      } catch (err) {
        if (!this.closed) this.logger.warn(`outbox: ${(err as Error).message}`);
      } finally {
        this.draining = null;
        this.scheduleDrain(this.backlog ? DRAIN_BACKLOG_MS : DRAIN_IDLE_MS);
      }
    })();
    return this.draining;
  }

  /** False when `id` was seen already. */
  private remember(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    if (!this.subscribed.has(name)) {
      this.subscribed.add(name);
      this.subscribing++;
      this.sub
        .subscribe(this.channel(name))
        .catch((err: Error) => {
          this.subscribed.delete(name);
          this.logger.error(`subscribe ${name}: ${err.message}`);
        })
        .finally(() => this.subscribing--);
    }
    this.local.on(name, handler);
    return () => this.local.off(name, handler);
  }

  async health(): Promise<BusHealth> {
    const pending = await this.outbox.count().catch(() => 0);
    if (this.sub.status !== 'ready' || this.pub.status !== 'ready')
      return { up: false, message: `connection ${this.pub.status}`, pending };
    try {
      return { up: (await this.pub.ping()) === 'PONG', pending };
    } catch (err) {
      return { up: false, message: (err as Error).message, pending };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.drainTimer);
    await this.draining;
    this.local.removeAllListeners();
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
