import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** `/player-chat.mjs`: the player's chat chunk, loaded by `<radio-player>` on other sites. */
@ApiExcludeController()
@Controller()
export class PlayerChatController {
  private code: string | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('player-chat.mjs')
  chunk(@Res() res: Response): void {
    if (this.code === null) {
      const file = resolve(this.config.playerDist, 'player-chat.mjs');
      if (!existsSync(file)) throw AppError.notFound('The player is not built: run npm run build');
      this.code = readFileSync(file, 'utf8');
    }
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    // A module imported from another site's page: CORS is required for it.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(this.code);
  }
}
