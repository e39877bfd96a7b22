import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MediaModule } from '../media/media.module.js';
import { HealthController } from './health.controller.js';
import { HealthIndicators } from './health.indicators.js';

@Module({
  // Failed probes are answered with what is down; logging each one would flood the log.
  imports: [TerminusModule.forRoot({ logger: false }), MediaModule],
  controllers: [HealthController],
  providers: [HealthIndicators],
})
export class HealthModule {}
