import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { JoinStationRequest, type JoinStationResponse } from '@radiobroadcaster/contracts';
import type { Request } from 'express';
import { publicBaseUrl } from '../common/request-origin.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { callerOf } from './http.js';
import { MediaService } from './media.service.js';

@ApiTags('media')
@Controller('api')
export class JoinController {
  constructor(
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('joinStationAsReceiver')
  @HttpCode(200)
  @RateLimit('listen')
  @ApiOperation({
    summary: 'Join a live station: answers with the WHEP URL, a short-lived token and ICE servers',
  })
  join(
    @Body(new ZodPipe(JoinStationRequest)) body: JoinStationRequest,
    @Req() req: Request,
  ): Promise<JoinStationResponse> {
    return this.media.join(body.stationId, callerOf(req), publicBaseUrl(req, this.config));
  }
}
