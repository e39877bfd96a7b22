import { Inject, Injectable } from '@nestjs/common';
import { type HealthIndicatorFunction, HealthIndicatorService } from '@nestjs/terminus';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { DataSource } from 'typeorm';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media.providers.js';
import { withTimeout } from '../common/with-timeout.js';

const TIMEOUT_MS = 2000;

/** The dependencies `/health` reports, each as a terminus indicator. */
@Injectable()
export class HealthIndicators {
  constructor(
    @Inject(HealthIndicatorService) private readonly indicator: HealthIndicatorService,
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
  ) {}

  all(): HealthIndicatorFunction[] {
    const checks: HealthIndicatorFunction[] = [() => this.database(), () => this.eventBus()];
    if (this.engine.clusterInfo) checks.push(() => this.sfu());
    return checks;
  }

  private async database() {
    const check = this.indicator.check('database');
    try {
      await withTimeout(this.db.query('SELECT 1'), TIMEOUT_MS);
      return check.up();
    } catch (err) {
      return check.down({ message: (err as Error).message });
    }
  }

  /** Redis away is "degraded", not "down": the node still serves, events wait in the outbox. */
  private async eventBus() {
    const check = this.indicator.check('eventBus');
    const state = await withTimeout(this.bus.health(), TIMEOUT_MS).catch((err: Error) => ({
      up: false,
      message: err.message,
      pending: 0,
    }));
    if (state.up && state.pending === 0) return check.up();
    const message = [
      state.up ? null : `Redis unreachable${state.message ? `: ${state.message}` : ''}`,
      state.pending ? `${state.pending} events waiting for delivery` : null,
    ]
      .filter(Boolean)
      .join('; ');
    return check.degraded({ message, pending: state.pending });
  }

  /** Cluster mode only: at least one SFU node registered and live. */
  private sfu() {
    const check = this.indicator.check('sfu');
    const nodes = this.engine.clusterInfo?.().nodes.length ?? 0;
    return nodes > 0
      ? check.up({ nodes })
      : check.down({ nodes, message: 'no live SFU node registered' });
  }
}
