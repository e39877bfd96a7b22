import 'reflect-metadata';
import { join } from 'node:path';
import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { LIMITS } from '@radiobroadcaster/contracts';
import { AppModule } from './app.module.js';
import { AllErrorsFilter } from './common/all-errors.filter.js';
import { publicCors } from './common/public-cors.js';
import { createPino, httpLogger, PinoNestLogger } from './common/logger.js';
import type { AppConfig } from './config/config.js';
import { RedisIoAdapter } from './realtime/redis-io.adapter.js';

/** Builds the whole app (used by `main.ts` and by the tests). */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  const logger = createPino(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
    bufferLogs: false,
  });
  if (config.trustProxy) app.set('trust proxy', true);
  app.disable('x-powered-by');
  app.use(httpLogger(logger));
  app.use(
    helmet({
      contentSecurityPolicy: false, // set per response by the web module (embed pages differ)
      crossOriginResourcePolicy: false,
      frameguard: false,
    }),
  );
  app.use(publicCors);
  app.use(cookieParser());
  app.useBodyParser('json', { limit: LIMITS.jsonBodyMaxBytes, strict: true });
  app.useBodyParser('text', { type: 'application/sdp', limit: LIMITS.sdpMaxBytes });
  // Hashed build assets of the web app; index.html itself is rendered per page by WebController.
  app.useStaticAssets(join(config.webDist, 'assets'), {
    prefix: '/assets/',
    immutable: true,
    maxAge: '1y',
  });
  app.useStaticAssets(config.webDist, { index: false, maxAge: '1h' });
  app.useGlobalFilters(new AllErrorsFilter());
  if (config.redisUrl) {
    const adapter = new RedisIoAdapter(app, config.redisUrl, config.eventPrefix);
    await adapter.connectToRedis();
    app.useWebSocketAdapter(adapter);
  }
  app.enableShutdownHooks();

  const doc = new DocumentBuilder()
    .setTitle('Radio Broadcaster API')
    .setDescription('Stations, listening, allowed domains and authentication.')
    .setVersion('1.0')
    .addBearerAuth()
    .addCookieAuth('rb_session')
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, doc));
  return app;
}
