import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media-engine.provider.js';
import { isClusterEngine } from '../media/remote-engine.js';

type Check = { status: 'up' | 'down'; message?: string };

/** Readiness (`/health`: database and event bus, 503 when one is down) and liveness. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
  ) {}

  @Get()
  async ready(@Res({ passthrough: true }) res: Response) {
    const [database, eventBus] = await Promise.all([this.checkDb(), this.checkBus()]);
    const sfu = this.checkSfu();
    const ok = database.status === 'up' && eventBus.status === 'up' && sfu?.status !== 'down';
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'error', checks: { database, eventBus, ...(sfu ? { sfu } : {}) } };
  }

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  private async checkDb(): Promise<Check> {
    try {
      await withTimeout(this.db.query('SELECT 1'), 2000);
      return { status: 'up' };
    } catch (err) {
      return { status: 'down', message: (err as Error).message };
    }
  }

  /** Cluster mode only: at least one SFU node registered and live. */
  private checkSfu(): (Check & { nodes: number }) | null {
    let engine: unknown;
    try {
      engine = this.moduleRef.get(MEDIA_ENGINE, { strict: false });
    } catch {
      return null;
    }
    const e = engine as MediaEngine | undefined;
    if (!e || !isClusterEngine(e)) return null;
    const nodes = e.liveNodes().length;
    return nodes > 0
      ? { status: 'up', nodes }
      : { status: 'down', nodes, message: 'no live SFU node registered' };
  }

  private async checkBus(): Promise<Check> {
    try {
      return (await withTimeout(this.bus.ping(), 2000)) ? { status: 'up' } : { status: 'down' };
    } catch (err) {
      return { status: 'down', message: (err as Error).message };
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
