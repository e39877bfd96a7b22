import { Controller, Get, Inject, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { OptionalSessionGuard } from '../auth/session.guard.js';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { docReply, PUBLIC_POLL_CACHE_CONTROL, sendReply } from '../common/json-doc.js';
import { StationReadModel } from './station-read-model.js';

@ApiTags('stations')
@Controller('api/users/:username/stations')
export class UserStationsController {
  constructor(@Inject(StationReadModel) private readonly reads: StationReadModel) {}

  @Get()
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({
    summary:
      "A broadcaster's public stations, live first (to the signed-in broadcaster: all of them, unlisted and private too)",
  })
  @ApiOkResponse({ description: '{ user, stations: Station[] }; ETag, 304 when unchanged' })
  async list(
    @Param('username') username: string,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user: AuthContext | undefined,
  ): Promise<void> {
    const own = user ? await this.reads.ownerStationsDoc(username, user.userId) : null;
    if (own) return sendReply(res, docReply(req, own, 'private, no-store'));
    sendReply(
      res,
      docReply(req, await this.reads.userStationsDoc(username), PUBLIC_POLL_CACHE_CONTROL),
    );
  }

  @Get(':slug')
  @ApiOperation({ summary: 'One station by its public address username/slug' })
  @ApiOkResponse({ description: 'Station; ETag, 304 when unchanged' })
  async get(
    @Param('username') username: string,
    @Param('slug') slug: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    sendReply(
      res,
      docReply(req, await this.reads.stationBySlugDoc(username, slug), PUBLIC_POLL_CACHE_CONTROL),
    );
  }
}
