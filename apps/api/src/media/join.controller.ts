import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ErrorTag,
  JoinStationRequest,
  type JoinStationResponse,
} from '@radiobroadcaster/contracts';
import type { Request } from 'express';
import { AppError } from '../common/app-error.js';
import { RateLimiter } from '../common/rate-limiter.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { baseUrlOf, originOf } from './http.js';
import { MediaService } from './media.service.js';

@ApiTags('media')
@Controller('api')
export class JoinController {
  private readonly limiter: RateLimiter;

  constructor(
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limiter = new RateLimiter(config.rateLimit.joinPerMinute, 60_000);
  }

  @Post('joinStationAsReceiver')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Join a live station: answers with the WHEP URL, a short-lived token and ICE servers',
  })
  async join(
    @Body(new ZodPipe(JoinStationRequest)) body: JoinStationRequest,
    @Req() req: Request,
  ): Promise<JoinStationResponse> {
    const { allowed, retryAfter } = await this.limiter.hit(`join:${req.ip ?? 'unknown'}`);
    if (!allowed) {
      throw new AppError(ErrorTag.RateLimited, 'Too many joins, slow down', undefined, {
        'Retry-After': String(retryAfter),
      });
    }
    return this.media.join(body.stationId, originOf(req), baseUrlOf(req));
  }
}
