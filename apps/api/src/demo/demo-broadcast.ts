import { Inject, Injectable, Logger } from '@nestjs/common';
import { DEMO_STATION_ID, DEMO_USER_ID } from '@radiobroadcaster/contracts';
import type { PacketPublisher } from '@radiobroadcaster/sfu';
import { EventBus } from '../events/event-bus.js';
import { MediaService } from '../media/media.service.js';
import { PacketPacer } from '../radio/packet-pacer.js';
import { StreamKeysService } from '../radio/stream-keys.service.js';
import { StationsService } from '../stations/stations.service.js';
import { DEMO_TRACK } from './demo-loop.js';

/** Audio queued ahead of the pacer: enough to ride out a busy event loop, little enough to stop fast. */
const AHEAD_MS = 300;
const TOP_UP_MS = 100;
/** Wait before publishing again after the engine dropped the demo (another node has it, a restart). */
const RETRY_MS = 5000;

/**
 * The demo station on the air: its loop published through the engine's packet publisher like an
 * Icecast source, published again whenever the engine drops it, and its now playing announced
 * each time it goes live.
 */
@Injectable()
export class DemoBroadcast {
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
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  /** Puts the loop (Opus packets of 20 ms) on the air until {@link stop}. */
  async start(packets: Buffer[]): Promise<void> {
    if (this.stopped) return;
    this.packets = packets;
    // Now playing is cleared whenever a broadcast ends: announce it each time it goes live.
    this.off = this.bus.subscribe('station.live', ({ stationId }, { local }) => {
      if (stationId !== DEMO_STATION_ID || !local) return;
      void this.stations
        .setNowPlaying(DEMO_USER_ID, { stationId, ...DEMO_TRACK })
        .catch((err: Error) => this.logger.warn(`demo now playing: ${err.message}`));
    });
    await this.publish();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    if (this.retry) clearTimeout(this.retry);
    await this.halt();
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
