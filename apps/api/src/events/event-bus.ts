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
 * Events the stream keeps (trimmed approximately): a node whose reader is away for fewer events
 * than this gets every one of them when it is back.
 */
const STREAM_MAX_LEN = 10_000;
/** A read waits this long for new events before it is sent again; also the longest catch-up delay. */
const READ_BLOCK_MS = 2000;
const READ_COUNT = 500;
/** After a failed read on a connection that looks ready (a Redis error), before the next one. */
const READ_RETRY_MS = 1000;
/** Event ids remembered to drop a repeat (an outbox event resent after a crash, or delivered here first). */
const SEEN_MAX = 10_000;

/**
 * Redis across nodes: every event is appended to one stream (`{prefix}:events`), which each node
 * reads from the last entry it saw. A node whose connection was away (a Redis restart, a network
 * blip, whichever node reconnects first) reads on from there, so it misses nothing written while it
 * was reconnecting, which pub/sub could not promise. While Redis is unreachable a publish still
 * succeeds: this node's subscribers get the event at once, and it waits in the durable outbox, in
 * order, until Redis takes it; every event carries an id so no subscriber sees it twice.
 */
export class RedisEventBus extends EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly nodeId = randomUUID();
  private readonly seen = new Set<string>();
  private readonly stream: string;
  /** The reader has not yet caught up since it started or lost its connection. */
  private lost = true;
  /** Events of this node are in the outbox: later ones follow them there, to keep the order. */
  private backlog = false;
  /** Publishes that went to the outbox, and those still being written there. */
  private deferred = 0;
  private adding = 0;
  private draining: Promise<void> | null = null;
  private drainTimer: NodeJS.Timeout | undefined;
  /** Whether the reader caught up once already (the first catch-up, at start, is no resync). */
  private caughtUp = false;
  private closed = false;
  private readonly reading: Promise<void>;
  /** Resolves on close(), to end the reader's waits. */
  private readonly stopped: Promise<void>;
  private stop!: () => void;
  private cancelRead: (() => void) | null = null;

  /**
   * `pub` appends, `reader` reads (a blocking read holds its connection). Both are best created
   * without an offline queue, so a command fails at once while Redis is away instead of waiting.
   */
  constructor(
    private readonly pub: Redis,
    private readonly reader: Redis,
    prefix: string,
    private readonly outbox: EventOutbox,
  ) {
    super();
    this.stream = `${prefix}:events`;
    this.pub.on('ready', () => this.scheduleDrain(0));
    this.scheduleDrain(DRAIN_IDLE_MS);
    this.reader.on('reconnecting', () => {
      this.reconnects++;
    });
    this.reader.on('close', () => {
      this.lost = true;
    });
    this.stopped = new Promise((resolve) => (this.stop = resolve));
    this.reading = this.read();
  }

  get synced(): boolean {
    return !this.lost && this.reader.status === 'ready';
  }

  async publish<K extends EventName>(name: K, payload: EventMap[K]): Promise<void> {
    const envelope: Envelope = { i: randomUUID(), o: this.nodeId, p: payload };
    if (!this.backlog && this.pub.status === 'ready') {
      try {
        await withTimeout(this.append(name, envelope), PUBLISH_TIMEOUT_MS, 'publish');
        return;
      } catch (err) {
        this.logger.warn(`Redis did not take ${name} (${(err as Error).message}); queued`);
      }
    }
    await this.defer(name, envelope);
  }

  private append(name: string, envelope: Envelope): Promise<unknown> {
    return this.pub.xadd(
      this.stream,
      'MAXLEN',
      '~',
      STREAM_MAX_LEN,
      '*',
      'n',
      name,
      'e',
      JSON.stringify(envelope),
    );
  }

  /** The write that caused the event succeeded: never fail the caller because Redis is away. */
  private async defer(name: EventName, envelope: Envelope): Promise<void> {
    this.backlog = true;
    this.deferred++;
    this.adding++;
    this.remember(envelope.i);
    this.local.emit(name, envelope.p, LOCAL);
    try {
      await this.outbox.add({ name, envelope });
    } catch (err) {
      this.logger.error(
        `event ${name} lost: neither Redis nor the outbox took it (${(err as Error).message})`,
      );
    } finally {
      this.adding--;
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
    // `finally` runs after the assignment even when drainOutbox() has nothing to wait for: the flag
    // is never left set by a run that finished (it once was, and no drain ran again).
    this.draining ??= this.drainOutbox().finally(() => {
      this.draining = null;
      this.scheduleDrain(this.backlog ? DRAIN_BACKLOG_MS : DRAIN_IDLE_MS);
    });
    return this.draining;
  }

  private async drainOutbox(): Promise<void> {
    if (this.closed || this.pub.status !== 'ready') return;
    try {
      const deferred = this.deferred;
      while (!this.closed) {
        const sent = await this.outbox.drain(({ name, envelope }) =>
          withTimeout(this.append(name, envelope), PUBLISH_TIMEOUT_MS, 'publish').then(
            () => undefined,
          ),
        );
        if (sent === 0) break;
        this.logger.log(`delivered ${sent} queued events`);
      }
      // Back to appending directly only once nothing of ours is left behind in the outbox.
      if (this.closed || this.adding > 0 || deferred !== this.deferred) return;
      const waiting = await this.outbox.count();
      if (waiting === 0 && this.adding === 0 && deferred === this.deferred) this.backlog = false;
    } catch (err) {
      if (!this.closed) this.logger.warn(`outbox: ${(err as Error).message}`);
    }
  }

  /**
   * Reads the stream from where this node started, for as long as the bus is open. After its
   * connection comes back it first reads everything it missed, then tells `onResync` handlers.
   */
  private async read(): Promise<void> {
    let last: string | null = null;
    while (!this.closed) {
      try {
        if (last === null) {
          // Only what is appended from now on: the newest entry so far, or the stream's start.
          const [newest] = await this.untilClosed(
            this.reader.xrevrange(this.stream, '+', '-', 'COUNT', 1),
          );
          last = newest?.[0] ?? '0-0';
        }
        const catchingUp = this.lost;
        const reply: StreamReply | null = await this.untilClosed(
          catchingUp
            ? this.reader.xread('COUNT', READ_COUNT, 'STREAMS', this.stream, last)
            : this.reader.xread(
                'COUNT',
                READ_COUNT,
                'BLOCK',
                READ_BLOCK_MS,
                'STREAMS',
                this.stream,
                last,
              ),
        );
        const entries: StreamEntry[] = reply?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          last = id;
          this.deliver(fields);
        }
        if (catchingUp && entries.length < READ_COUNT && this.reader.status === 'ready') {
          const again = this.caughtUp;
          this.caughtUp = true;
          this.lost = false;
          if (again) this.resynced();
        }
      } catch (err) {
        if (this.closed || this.reader.status === 'end') return;
        this.lost = true;
        if (this.reader.status === 'ready') {
          this.logger.warn(`reading events: ${(err as Error).message}`);
          await Promise.race([delay(READ_RETRY_MS), this.stopped]);
        } else {
          await Promise.race([whenReady(this.reader), this.stopped]);
        }
      }
    }
  }

  /**
   * `read`, or a rejection when the reader's connection closes first: ioredis neither answers nor
   * rejects a command that was under way then (it drops it when it reconnects, as the reader's
   * `autoResendUnfulfilledCommands` is off: a read resent later would deliver to no one).
   */
  private untilClosed<T>(read: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onClose = () => reject(new Error('connection closed'));
      this.reader.once('close', onClose);
      this.cancelRead = onClose;
      const settle = () => {
        this.reader.off('close', onClose);
        this.cancelRead = null;
      };
      read.then(
        (v) => (settle(), resolve(v)),
        (err: unknown) => (settle(), reject(err as Error)),
      );
    });
  }

  private deliver(fields: string[]): void {
    let name = '';
    let message = '';
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'n') name = fields[i + 1]!;
      else if (fields[i] === 'e') message = fields[i + 1]!;
    }
    try {
      const envelope = JSON.parse(message) as Envelope;
      if (envelope.i && !this.remember(envelope.i)) return;
      this.local.emit(name, envelope.p, envelope.o === this.nodeId ? LOCAL : REMOTE);
    } catch (err) {
      this.logger.warn(`dropped an event (${name}): ${(err as Error).message}`);
    }
  }

  /** False when `id` was seen already. */
  private remember(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  subscribe<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    this.local.on(name, handler);
    return () => this.local.off(name, handler);
  }

  async health(): Promise<BusHealth> {
    const pending = await this.outbox.count().catch(() => 0);
    if (this.reader.status !== 'ready' || this.pub.status !== 'ready')
      return { up: false, message: `connection ${this.pub.status}`, pending };
    try {
      return { up: (await this.pub.ping()) === 'PONG', pending };
    } catch (err) {
      return { up: false, message: (err as Error).message, pending };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    this.cancelRead?.();
    clearTimeout(this.drainTimer);
    await this.draining;
    this.local.removeAllListeners();
    this.pub.disconnect();
    this.reader.disconnect();
    await this.reading;
  }
}

type StreamEntry = [id: string, fields: string[]];
type StreamReply = [key: string, entries: StreamEntry[]][];

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Resolves when `c` is ready again (or will never be). */
function whenReady(c: Redis): Promise<void> {
  if (c.status === 'ready' || c.status === 'end') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      c.off('ready', done);
      c.off('end', done);
      resolve();
    };
    c.on('ready', done);
    c.on('end', done);
  });
}
