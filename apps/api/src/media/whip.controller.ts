import {
  All,
  Controller,
  Delete,
  HttpCode,
  Inject,
  Options,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';
import { ErrorTag, StationId } from '@radiobroadcaster/contracts';
import { ZodPipe } from '../common/zod.pipe.js';
import { bearerOf, sdpBody, setMediaCors } from './http.js';
import { MediaService } from './media.service.js';

const SessionId = StationId;

/** WHIP ingest (RFC 9725): the broadcaster's SDP offer in, the answer and a session URL out. */
@ApiTags('media')
@Controller('whip/:stationId')
export class WhipController {
  constructor(@Inject(MediaService) private readonly media: MediaService) {}

  @Options(['', 'sessions/:sessionId'])
  @HttpCode(204)
  preflight(@Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    setMediaCors(req, res);
    res.setHeader('Accept-Post', 'application/sdp');
  }

  @Post()
  @ApiOperation({
    summary: 'Publish: SDP offer (application/sdp) with a station token → 201 + answer + Location',
  })
  async publish(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    setMediaCors(req, res);
    const { sessionId, answer } = await this.media.publish(stationId, bearerOf(req), sdpBody(req));
    res
      .status(201)
      .setHeader('Content-Type', 'application/sdp')
      .setHeader('Location', `/whip/${stationId}/sessions/${sessionId}`)
      .send(answer);
  }

  @Delete('sessions/:sessionId')
  @HttpCode(204)
  async stop(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Param('sessionId', new ZodPipe(SessionId)) sessionId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    setMediaCors(req, res);
    await this.media.unpublish(stationId, sessionId, bearerOf(req));
  }

  @All('sessions/:sessionId')
  unsupported(@Req() req: Request, @Res({ passthrough: true }) res: Response): never {
    setMediaCors(req, res);
    res.setHeader('Allow', 'DELETE, OPTIONS');
    throw new AppError(
      ErrorTag.MethodNotAllowed,
      'Trickle ICE and ICE restarts are not supported; offers must carry their candidates',
    );
  }
}
