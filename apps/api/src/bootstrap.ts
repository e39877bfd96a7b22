import 'reflect-metadata';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { IMAGE_RULES, LIMITS } from '@radiobroadcaster/contracts';
import { AppModule } from './app.module.js';
import { AllErrorsFilter } from './common/all-errors.filter.js';
import { publicCors } from './common/public-cors.js';
import { FastLane, headersSetBy } from './common/fast-lane.js';
import type { Reply } from './common/json-doc.js';
import { createPino, httpLogger } from './common/logger.js';
import { rejectControlCharactersInPath } from './common/url-text.middleware.js';
import type { AppConfig } from './config/config.js';
import { RedisIoAdapter } from './realtime/redis-io.adapter.js';
import { connectRedis } from './redis/redis-connection.js';
import { checkDatabase } from './database/database-connection.js';
import { publicReadRoutes } from './stations/public-reads.lane.js';
import { IcecastIngest } from './radio/icecast-ingest.service.js';
import { HttpListen } from './radio/http-listen.service.js';
import { StationReadModel } from './stations/station-read-model.js';
import { RedisService } from './redis/redis.service.js';

export interface CreateAppOptions {
  /** Where log lines go instead of stdout (tests). */
  logDestination?: DestinationStream;
}

/** Builds the whole app (used by `main.ts` and by the tests). */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<INestApplication> {
  const logger = createPino(config.logLevel, options.logDestination);
  if (config.databaseUrl) await checkDatabase(config.databaseUrl);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, `${config.redisPrefix}:api:main`)
    : null;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, redis, logger),
    // A failed start throws to the caller (main.ts, or a test) instead of exiting the process.
    { bodyParser: false, bufferLogs: true, abortOnError: false },
  );
  app.useLogger(app.get(Logger));
  if (config.trustProxy) app.set('trust proxy', true);
  app.disable('x-powered-by');
  const securityHeaders = helmet({
    contentSecurityPolicy: false, // set per response by the web module (embed pages differ)
    crossOriginResourcePolicy: false,
    frameguard: false,
  });
  new FastLane(logger, headersSetBy(securityHeaders), config.trustProxy)
    .add({ path: '/health/live', log: false, handler: () => LIVE })
    .add(...publicReadRoutes(app.get(StationReadModel)))
    .add(...app.get(IcecastIngest).laneRoutes())
    .install(app.getHttpServer());
  // Icecast sources stream their audio in a request Node's HTTP parser cannot take
  app.get(IcecastIngest).install(app.getHttpServer());
  // Endless HTTP streams for radio apps, VLC and the player's fallback
  app.get(HttpListen).install(app.getHttpServer());
  app.use(httpLogger(logger));
  app.use(securityHeaders);
  app.use(publicCors);
  app.use(rejectControlCharactersInPath);
  app.use(cookieParser());
  app.useBodyParser('json', { limit: LIMITS.jsonBodyMaxBytes, strict: true });
  app.useBodyParser('text', { type: 'application/sdp', limit: LIMITS.sdpMaxBytes });
  // Cover art and avatar uploads: the raw image, checked and resized by the images module.
  app.useBodyParser('raw', { type: 'image/*', limit: IMAGE_RULES.maxBytes });
  // Hashed build assets of the web app; index.html itself is rendered per page by WebController.
  app.useStaticAssets(join(config.webDist, 'assets'), {
    prefix: '/assets/',
    immutable: true,
    maxAge: '1y',
  });
  app.use(topLevelFiles(config.webDist));
  app.useGlobalFilters(new AllErrorsFilter());
  const redisService = app.get(RedisService);
  if (redisService.client) {
    const adapter = new RedisIoAdapter(app, redisService, config.redisPrefix);
    await adapter.connectToRedis();
    app.useWebSocketAdapter(adapter);
  }
  // Signals are main.ts's (a bounded shutdown that exits 0); a test closes its app itself.

  if (config.apiDocs) setUpApiDocs(app);
  return app;
}

/** The OpenAPI document and its page, under a CSP of their own (the site's is set per page). */
function setUpApiDocs(app: NestExpressApplication): void {
  app.use(
    '/api/docs',
    helmet.contentSecurityPolicy({
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    }),
  );
  const doc = new DocumentBuilder()
    .setTitle('Radio Broadcaster API')
    .setDescription('Stations, listening, allowed domains and authentication.')
    .setVersion('1.0')
    .addBearerAuth()
    .addCookieAuth('rb_session')
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, doc));
}

/**
 * The web app's other top-level files (favicon, images), looked up only for those names: a
 * static lookup on every request would cost each API call a file-system round trip.
 */
function topLevelFiles(webDist: string) {
  const names = new Set(
    existsSync(webDist)
      ? readdirSync(webDist).filter((n) => n !== 'index.html' && n !== 'assets')
      : [],
  );
  const serve = express.static(webDist, { index: false, maxAge: '1h' });
  return (req: Request, res: Response, next: NextFunction): void => {
    const first = req.path.split('/', 2)[1] ?? '';
    if (names.has(first)) serve(req, res, next);
    else next();
  };
}

/** What `HealthController.live` answers: the process is up and its event loop turns. */
const LIVE_BODY = JSON.stringify({ status: 'ok' });
const LIVE: Reply = {
  status: 200,
  headers: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', LIVE_BODY.length],
  body: LIVE_BODY,
};
