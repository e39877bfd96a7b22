import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/**
 * `/player-presence.mjs` and `/player-chat.mjs`: the player's "who is listening" and chat chunks,
 * loaded by `<radio-player>` on other sites.
 */
@ApiExcludeController()
@Controller()
export class PlayerChatController {
  private readonly code = new Map<string, string>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('player-chat.mjs')
  chat(@Res() res: Response): void {
    this.send(res, 'player-chat.mjs');
  }

  @Get('player-presence.mjs')
  presence(@Res() res: Response): void {
    this.send(res, 'player-presence.mjs');
  }

  private send(res: Response, name: string): void {
    let code = this.code.get(name);
    if (code === undefined) {
      const file = resolve(this.config.playerDist, name);
      if (!existsSync(file)) throw AppError.notFound('The player is not built: run npm run build');
      this.code.set(name, (code = readFileSync(file, 'utf8')));
    }
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    // A module imported from another site's page: CORS is required for it.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(code);
  }
}
