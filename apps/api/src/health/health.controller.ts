import {
  Controller,
  Get,
  HttpCode,
  Inject,
  Res,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { HealthIndicators } from './health.indicators.js';

/**
 * Readiness (`/health`): 503 when the database (or, in cluster mode, every SFU node) is down;
 * 200 `degraded` while Redis is away (writes still succeed, events wait in the outbox).
 * Liveness (`/health/live`): the process answers.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicators) private readonly indicators: HealthIndicators,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Readiness: each dependency up, degraded or down, and why' })
  async ready(@Res({ passthrough: true }) res: Response) {
    let result: HealthCheckResult;
    try {
      result = await this.health.check(this.indicators.all());
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      result = err.getResponse() as HealthCheckResult;
      res.status(503);
    }
    const status = result.status === 'ok' || result.status === 'degraded' ? result.status : 'error';
    return { status, checks: result.details };
  }

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  live() {
    return { status: 'ok' };
  }
}
