import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  DEMO_SLUG,
  DEMO_STATION_ID,
  DEMO_USER_ID,
  DEMO_USERNAME,
  PRODUCT_NAME,
} from '@radiobroadcaster/contracts';
import type { PacketPublisher } from '@radiobroadcaster/sfu';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { MediaService } from '../media/media.service.js';
import { PacketPacer } from '../radio/packet-pacer.js';
import { StreamKeysService } from '../radio/stream-keys.service.js';
import { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { UserEntity } from '../users/user.entity.js';
import { DEMO_TRACK, encodeDemoLoop } from './demo-loop.js';

/** Audio queued ahead of the pacer: enough to ride out a busy event loop, little enough to stop fast. */
const AHEAD_MS = 300;
const TOP_UP_MS = 100;
/** Wait before publishing again after the engine dropped the demo (another node has it, a restart). */
const RETRY_MS = 5000;

/**
 * The demo station (`/radiobroadcaster/demo`): a real live station the server publishes itself,
 * through the engine's packet publisher like an Icecast source, from a synthesised loop, so "Listen
 * to the demo" plays live audio over WebRTC (and every other way a station is heard). On unless
 * `DEMO_STATION=false`. Its user and station have fixed ids, the ones the web app's built-in demo
 * data carries.
 */
@Injectable()
export class DemoStationService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DemoStation');
  private packets: Buffer[] = [];
  private next = 0;
  private publisher: PacketPublisher | null = null;
  private pacer: PacketPacer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;
  private off: (() => void) | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.demoStation) return;
    // After the server is up: encoding the loop takes a moment of CPU.
    this.retry = setTimeout(() => void this.begin(), 0);
  }

  private async begin(): Promise<void> {
    try {
      await this.ensureStation();
      this.packets = encodeDemoLoop();
    } catch (err) {
      this.logger.warn(`demo station not started: ${(err as Error).message}`);
      return;
    }
    if (this.stopped) return;
    // Now playing is cleared whenever a broadcast ends: announce it each time it goes live.
    this.off = this.bus.subscribe('station.live', ({ stationId }, { local }) => {
      if (stationId !== DEMO_STATION_ID || !local) return;
      void this.stations
        .setNowPlaying(DEMO_USER_ID, { stationId, ...DEMO_TRACK })
        .catch((err: Error) => this.logger.warn(`demo now playing: ${err.message}`));
    });
    await this.publish();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.off?.();
    if (this.retry) clearTimeout(this.retry);
    await this.halt();
  }

  /** The demo broadcaster and station, created once (fixed ids; nobody can sign up as them). */
  private async ensureStation(): Promise<void> {
    await this.db
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({
        id: DEMO_USER_ID,
        email: 'demo@radiobroadcaster.invalid',
        username: DEMO_USERNAME,
        name: PRODUCT_NAME,
        // Not a hash of anything: nobody can sign in as the demo broadcaster.
        passwordHash: '!demo',
        emailVerified: true,
      })
      .orIgnore()
      .execute();
    await this.db
      .createQueryBuilder()
      .insert()
      .into(StationEntity)
      .values({
        id: DEMO_STATION_ID,
        broadcasterId: DEMO_USER_ID,
        name: `${PRODUCT_NAME} Demo`,
        slug: DEMO_SLUG,
        description: 'A demo station that shows what a live station looks like.',
      })
      .orIgnore()
      .execute();
    // Reads that looked for it before it existed must look again.
    await this.bus.publish('station.created', {
      stationId: DEMO_STATION_ID,
      broadcasterId: DEMO_USER_ID,
    });
  }

  private async publish(): Promise<void> {
    if (this.stopped) return;
    try {
      const settings = await this.keys.settings(DEMO_STATION_ID);
      const pub = await this.media.publishPackets(DEMO_STATION_ID, settings.streamKeyHash);
      if (this.stopped) {
        await pub.close();
        return;
      }
      this.publisher = pub;
      this.pacer = new PacketPacer((payload, samples) => pub.push(payload, samples));
      this.timer = setInterval(() => this.topUp(), TOP_UP_MS);
      this.topUp();
      this.logger.log('the demo station is live');
      void pub.gone.then((reason) => {
        if (this.publisher !== pub) return;
        this.logger.warn(`the demo station's publisher went (${reason}); publishing again`);
        void this.halt().then(() => this.later());
      });
    } catch (err) {
      this.logger.warn(`demo station: ${(err as Error).message}; trying again`);
      this.later();
    }
  }

  private later(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => void this.publish(), RETRY_MS);
    this.retry.unref();
  }

  private topUp(): void {
    const pacer = this.pacer;
    if (!pacer) return;
    while (pacer.aheadMs < AHEAD_MS) {
      pacer.push(this.packets[this.next]!, 960);
      this.next = (this.next + 1) % this.packets.length;
    }
  }

  private async halt(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.pacer?.close();
    this.pacer = null;
    const pub = this.publisher;
    this.publisher = null;
    await pub?.close().catch(() => undefined);
  }
}
