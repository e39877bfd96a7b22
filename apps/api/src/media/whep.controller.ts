import { Controller, Inject, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import {
  Bearer,
  CallerOf,
  SdpOffer,
  SdpResourceController,
  sendAnswer,
  StationParam,
} from './http.js';
import { IceServersService } from '../turn/ice-servers.service.js';
import { MediaService, type Caller } from './media.service.js';

/** WHEP egress: a listener's SDP offer (recvonly audio) in, the answer and a session URL out. */
@ApiTags('media')
@Controller('whep/:stationId')
export class WhepController extends SdpResourceController {
  constructor(
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(IceServersService) private readonly ice: IceServersService,
  ) {
    super();
  }

  @Post()
  @RateLimit('listen')
  @ApiOperation({
    summary:
      'Listen: SDP offer (application/sdp), optionally with the token from joinStationAsReceiver → 201 + answer',
  })
  async listen(
    @StationParam() stationId: string,
    @Bearer() bearer: string | null,
    @CallerOf() caller: Caller,
    @SdpOffer() offer: string,
    @Res() res: Response,
  ): Promise<void> {
    const session = await this.media.listen(stationId, bearer, caller, offer);
    // TURN credentials only for an accepted exchange
    sendAnswer(res, `/whep/${stationId}`, session, this.ice.links(this.ice.forCaller('listener')));
  }

  /** Leaves: a session opened with a listener token needs that token. */
  protected endSession(stationId: string, sessionId: string, bearer: string | null) {
    return this.media.leave(stationId, sessionId, bearer);
  }
}
