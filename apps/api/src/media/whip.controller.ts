import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SdpResourceController } from './sdp-resource.controller.js';

/**
 * WHIP ingest (RFC 9725): the broadcaster's SDP offer in, the answer and a session URL out.
 * Routes (sdp-resource.controller.ts): POST /whip/:stationId, DELETE /whip/:stationId/sessions/:sessionId,
 * their OPTIONS preflights, 405 for other methods on a session.
 */
@ApiTags('media')
@Controller('whip/:stationId')
export class WhipController extends SdpResourceController('whip') {
  openSession(stationId: string, bearer: string | null, _caller: unknown, offer: string) {
    return this.media.publish(stationId, bearer, offer);
  }

  /** Stops publishing: the station token of the station is enough. */
  endSession(stationId: string, sessionId: string, bearer: string | null) {
    return this.media.unpublish(stationId, sessionId, bearer);
  }
}
