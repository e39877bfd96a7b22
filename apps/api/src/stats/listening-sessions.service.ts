import { randomUUID } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { ListeningTransport } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { classifyClient, whereHeard } from './stats-math.js';
import { StatsRepository } from './stats.repository.js';

/**
 * Where listening is recorded: the media paths call `started`/`ended` for every listener
 * (WebRTC or HTTP). Nothing identifying is kept: no cookie, no IP, no User-Agent string, only the
 * transport, the embedding site's host and a coarse kind of client. Sessions belong to this node;
 * if it dies, another node ends them at its last heartbeat.
 */
@Injectable()
export class ListeningSessions
  implements OnModuleInit, OnModuleDestroy, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('Stats');
  readonly nodeId = `api-${randomUUID()}`;
  readonly staleAfterSeconds: number;
  private readonly off: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(StatsRepository) private readonly repo: StatsRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.staleAfterSeconds = (config.stats.heartbeatMs * 3) / 1000;
  }

  onModuleInit(): void {
    // A broadcast is one live period: a publisher who reconnects within the grace keeps it.
    this.off.push(
      this.bus.subscribe('station.live', ({ stationId }, { local }) => {
        if (local) void this.safely('open a broadcast', () => this.repo.openBroadcast(stationId));
      }),
      this.bus.subscribe('station.offline', ({ stationId }, { local }) => {
        if (local) void this.safely('close a broadcast', () => this.repo.closeBroadcast(stationId));
      }),
      this.bus.subscribe('station.ended', ({ stationId }, { local }) => {
        if (local) void this.safely('close a broadcast', () => this.repo.closeBroadcast(stationId));
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.config.stats.heartbeatMs);
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  async beat(): Promise<void> {
    await this.safely('heartbeat', () => this.repo.heartbeat(this.nodeId));
  }

  /** A listener got audio flowing (or an HTTP stream began); `id` is the media session id. */
  async started(s: {
    id: string;
    stationId: string;
    transport: ListeningTransport;
    origin: string | null;
    userAgent: string | null | undefined;
  }): Promise<void> {
    const where = whereHeard(s.origin, this.config.trustedOrigins);
    await this.safely('record a session', () =>
      this.repo.startSession({
        id: s.id,
        stationId: s.stationId,
        transport: s.transport,
        source: where.source,
        domain: where.domain,
        client: classifyClient(s.userAgent),
        nodeId: this.nodeId,
      }),
    );
  }

  async ended(id: string): Promise<void> {
    await this.safely('end a session', () => this.repo.endSession(id));
  }

  /** Stats never break listening: failures are logged, not thrown. */
  private async safely(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.logger.warn(`${what}: ${(err as Error).message}`);
    }
  }
}
