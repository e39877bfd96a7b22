import { Controller, Inject, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { Bearer, SdpOffer, SdpResourceController, sendAnswer, StationParam } from './http.js';
import { IceServersService } from '../turn/ice-servers.service.js';
import { MediaService } from './media.service.js';

/** WHIP ingest (RFC 9725): the broadcaster's SDP offer in, the answer and a session URL out. */
@ApiTags('media')
@Controller('whip/:stationId')
export class WhipController extends SdpResourceController {
  constructor(
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(IceServersService) private readonly ice: IceServersService,
  ) {
    super();
  }

  @Post()
  @RateLimit('publish')
  @ApiOperation({
    summary: 'Publish: SDP offer (application/sdp) with a station token → 201 + answer + Location',
  })
  async publish(
    @StationParam() stationId: string,
    @Bearer() bearer: string | null,
    @SdpOffer() offer: string,
    @Res() res: Response,
  ): Promise<void> {
    const session = await this.media.publish(stationId, bearer, offer);
    // TURN credentials only for an accepted exchange
    sendAnswer(res, `/whip/${stationId}`, session, this.ice.links(this.ice.forCaller('publisher')));
  }

  /** Stops publishing: the station token of the station is enough. */
  protected endSession(stationId: string, sessionId: string, bearer: string | null) {
    return this.media.unpublish(stationId, sessionId, bearer);
  }
}
