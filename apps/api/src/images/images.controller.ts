import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Put,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AvatarResponse,
  ErrorTag,
  IMAGE_TYPES,
  type Station,
  StationId,
} from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { AppError } from '../common/app-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ImagesService } from './images.service.js';

const ImageFile = z.string().regex(/^[0-9a-f-]{36}\.webp$/, 'No such image');
const CardFile = z.string().regex(/^[0-9a-f-]{36}\.png$/, 'No such image');

/** The raw image body of an upload (`Content-Type: image/…`), checked for a supported type. */
function uploadOf(req: Request, field: string): Buffer {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!IMAGE_TYPES.includes(type) || !Buffer.isBuffer(req.body)) {
    const message = 'Use a JPEG, PNG, WebP, GIF or AVIF image.';
    throw new AppError(ErrorTag.UnsupportedMediaType, message, [{ path: field, message }]);
  }
  return req.body;
}

@ApiTags('images')
@Controller()
export class ImagesController {
  constructor(@Inject(ImagesService) private readonly images: ImagesService) {}

  @Get('images/:file')
  @ApiOperation({ summary: 'A stored picture (WebP); its address never changes content' })
  async image(
    @Param('file', new ZodPipe(ImageFile)) file: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const image = await this.images.image(file.slice(0, 36));
    sendImage(req, res, image.bytes, image.contentType, `"${image.id}"`, IMMUTABLE);
  }

  @Get('og/stations/:file')
  @ApiOperation({ summary: "A station's 1200×630 social preview (PNG)" })
  async card(
    @Param('file', new ZodPipe(CardFile)) file: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const stationId = StationId.parse(file.slice(0, 36));
    const { png, version } = await this.images.stationCard(stationId);
    // The address carries ?v={version}: a matching one may be kept for good.
    const cache = req.query.v === version ? IMMUTABLE : 'public, max-age=3600';
    sendImage(req, res, png, 'image/png', `"${stationId}-${version}"`, cache);
  }

  @Put('api/stations/:id/cover')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Upload cover art (raw image body, at most 8 MB, at least 300×300)' })
  setCover(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
    @Req() req: Request,
  ): Promise<Station> {
    return this.images.setCover(user.userId, id, uploadOf(req, 'cover'));
  }

  @Delete('api/stations/:id/cover')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Remove the cover art' })
  removeCover(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<Station> {
    return this.images.removeCover(user.userId, id);
  }

  @Put('api/me/avatar')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Upload your picture (raw image body, at most 8 MB, at least 96×96)' })
  async setAvatar(@CurrentUser() user: AuthContext, @Req() req: Request): Promise<AvatarResponse> {
    return { avatarUrl: await this.images.setAvatar(user.userId, uploadOf(req, 'avatar')) };
  }

  @Delete('api/me/avatar')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Remove your picture' })
  async removeAvatar(@CurrentUser() user: AuthContext): Promise<AvatarResponse> {
    return { avatarUrl: await this.images.setAvatar(user.userId, null) };
  }
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

function sendImage(
  req: Request,
  res: Response,
  bytes: Buffer,
  contentType: string,
  etag: string,
  cacheControl: string,
): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', etag);
  // Players and link previews on other sites show these.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  res.send(bytes);
}
