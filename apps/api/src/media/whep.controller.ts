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
import { ErrorTag, StationId } from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { AppError } from '../common/app-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { bearerOf, originOf, sdpBody, setMediaCors } from './http.js';
import { MediaService } from './media.service.js';

/** WHEP egress: a listener's SDP offer (recvonly audio) in, the answer and a session URL out. */
@ApiTags('media')
@Controller('whep/:stationId')
export class WhepController {
  constructor(@Inject(MediaService) private readonly media: MediaService) {}

  @Options(['', 'sessions/:sessionId'])
  @HttpCode(204)
  preflight(@Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    setMediaCors(req, res);
    res.setHeader('Accept-Post', 'application/sdp');
  }

  @Post()
  @ApiOperation({
    summary:
      'Listen: SDP offer (application/sdp), optionally with the token from joinStationAsReceiver → 201 + answer',
  })
  async listen(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    setMediaCors(req, res);
    const { sessionId, answer } = await this.media.listen(
      stationId,
      bearerOf(req),
      originOf(req),
      sdpBody(req),
    );
    res
      .status(201)
      .setHeader('Content-Type', 'application/sdp')
      .setHeader('Location', `/whep/${stationId}/sessions/${sessionId}`)
      .send(answer);
  }

  @Delete('sessions/:sessionId')
  @HttpCode(204)
  async leave(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Param('sessionId', new ZodPipe(StationId)) sessionId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    setMediaCors(req, res);
    await this.media.leave(stationId, sessionId, bearerOf(req));
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
