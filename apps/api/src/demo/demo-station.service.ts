import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DEMO_STATION_ID, DEMO_USER_ID } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { DemoBroadcast } from './demo-broadcast.js';
import { encodeDemoLoop } from './demo-loop.js';
import { DemoRepository } from './demo.repository.js';

/**
 * The demo station (`/radiobroadcaster/demo`): a real live station the server publishes itself
 * from a synthesised loop ({@link DemoBroadcast}), so "Listen to the demo" plays live audio over
 * WebRTC (and every other way a station is heard). On unless `DEMO_STATION=false`. Its user and
 * station have fixed ids, the ones the web app's built-in demo data carries.
 */
@Injectable()
export class DemoStationService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DemoStation');
  private starting: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DemoRepository) private readonly demo: DemoRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(DemoBroadcast) private readonly broadcast: DemoBroadcast,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.demoStation) return;
    // After the server is up: encoding the loop takes a moment of CPU.
    this.starting = setTimeout(() => void this.begin(), 0);
  }

  private async begin(): Promise<void> {
    let packets: Buffer[];
    try {
      await this.ensureStation();
      packets = encodeDemoLoop();
    } catch (err) {
      this.logger.warn(`demo station not started: ${(err as Error).message}`);
      return;
    }
    if (this.stopped) return;
    await this.broadcast.start(packets);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.starting) clearTimeout(this.starting);
    await this.broadcast.stop();
  }

  /** The demo broadcaster and station, created once (fixed ids; nobody can sign up as them). */
  private async ensureStation(): Promise<void> {
    await this.demo.ensureDemoStation();
    // Reads that looked for it before it existed must look again.
    await this.bus.publish('station.created', {
      stationId: DEMO_STATION_ID,
      broadcasterId: DEMO_USER_ID,
    });
  }
}
