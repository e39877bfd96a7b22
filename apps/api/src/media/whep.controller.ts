import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SdpResourceController } from './sdp-resource.controller.js';
import type { Caller } from './media.service.js';

/**
 * WHEP egress: a listener's SDP offer (recvonly audio) in, the answer and a session URL out.
 * Routes (sdp-resource.controller.ts): POST /whep/:stationId, DELETE /whep/:stationId/sessions/:sessionId,
 * their OPTIONS preflights, 405 for other methods on a session.
 */
@ApiTags('media')
@Controller('whep/:stationId')
export class WhepController extends SdpResourceController('whep') {
  openSession(stationId: string, bearer: string | null, caller: Caller, offer: string) {
    return this.media.listen(stationId, bearer, caller, offer);
  }

  /** Leaves: a session opened with a listener token needs that token. */
  endSession(stationId: string, sessionId: string, bearer: string | null) {
    return this.media.leave(stationId, sessionId, bearer);
  }
}
