import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  JoinStationRequest,
  type JoinStationResponse,
  StationId,
} from '@radiobroadcaster/contracts';
import type { Request } from 'express';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { OptionalSessionGuard } from '../auth/session.guard.js';
import { publicBaseUrl } from '../common/request-origin.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { callerOf } from './media-request.js';
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
  // password attempts also count per IP and station (RATE_LIMIT_STATION_PASSWORD_PER_MINUTE)
  @RateLimit('listen', 'stationPassword')
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({
    summary:
      'Join a live station: answers with the WHEP URL, a short-lived token and ICE servers; a private station needs `invite`, `password`, an earlier `grant` or a listener-list account (403 PRIVATE_STATION otherwise)',
  })
  join(
    @Body(new ZodPipe(JoinStationRequest)) body: Parsed<typeof JoinStationRequest>,
    @Req() req: Request,
    @CurrentUser() user: AuthContext | undefined,
  ): Promise<JoinStationResponse> {
    const { stationId, ...admission } = body;
    return this.media.join(
      stationId,
      callerOf(req),
      publicBaseUrl(req, this.config),
      admission,
      user?.userId ?? null,
    );
  }

  @Get('stations/:id/playable')
  // The answer depends on the asking page's Origin: never cached, by anyone.
  @Header('Cache-Control', 'private, no-store')
  @Header('Vary', 'Origin')
  @ApiOperation({
    summary:
      "Whether the calling page's Origin may play this station (its owner's allowed domains), asked before offering Play",
  })
  async playable(
    @Param('id', new ZodPipe(StationId)) id: string,
    @Req() req: Request,
  ): Promise<{ allowed: boolean }> {
    return { allowed: await this.media.playableFrom(id, callerOf(req).origin) };
  }
}
