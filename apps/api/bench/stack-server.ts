/**
 * The HTTP-stack spike's server (issue 25, item 9), started by stack-bench.ts: one Nest application
 * answering the public station read (`GET /api/stations/:id`) the way the API's Nest route does —
 * a global guard that looks for a session cookie, a pipe that validates the id, an interceptor that
 * sets helmet's headers, Cache-Control and the ETag — on Express (`@nestjs/platform-express`, what
 * the API runs today) or on Fastify (`@nestjs/platform-fastify`). The same module on both adapters,
 * so the difference is the adapter's. No logging, no database: the JSON is the API's answer, read
 * once from the real API.
 * Usage: node apps/api/bench/dist/stack-server.js --adapter express|fastify --port P --body-file F
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  BadRequestException,
  type CallHandler,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type NestInterceptor,
  Param,
  type PipeTransform,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, HttpAdapterHost, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Observable } from 'rxjs';

const { values } = parseArgs({
  options: {
    adapter: { type: 'string', default: 'express' },
    port: { type: 'string' },
    'body-file': { type: 'string' },
  },
});
const doc = JSON.parse(readFileSync(values['body-file']!, 'utf8')) as Record<string, unknown>;
const ETAG = `W/"${Buffer.from(JSON.stringify(doc)).length.toString(16)}-bench"`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Helmet 8's defaults as the API sends them (CSP as the API's JSON routes carry it). */
const SECURITY_HEADERS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/** Like the API's optional-session guard: reads the cookie, lets everyone through. */
@Injectable()
class SessionGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    (req as { viewer?: string | null }).viewer = req.headers.cookie?.includes('rb_session=')
      ? 'someone'
      : null;
    return true;
  }
}

class StationIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new BadRequestException('Invalid request: id: must be a UUID');
    return value;
  }
}

/** Helmet's headers, the poll's cache policy, CORS for the player and the ETag, on either adapter. */
@Injectable()
class PublicReadHeaders implements NestInterceptor {
  constructor(private readonly host: HttpAdapterHost) {}
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res: unknown = ctx.switchToHttp().getResponse();
    const http = this.host.httpAdapter;
    for (const [name, value] of SECURITY_HEADERS) http.setHeader(res, name, value);
    http.setHeader(res, 'Cache-Control', 'public, max-age=5, stale-while-revalidate=10');
    http.setHeader(res, 'Access-Control-Allow-Origin', '*');
    http.setHeader(res, 'ETag', ETAG);
    return next.handle();
  }
}

@Controller('api/stations')
class StationsController {
  @Get(':id')
  read(@Param('id', StationIdPipe) id: string): Record<string, unknown> {
    return id === doc.id ? doc : { ...doc, id };
  }
}

@Module({
  controllers: [StationsController],
  providers: [
    { provide: APP_GUARD, useClass: SessionGuard },
    { provide: APP_INTERCEPTOR, useClass: PublicReadHeaders },
  ],
})
class BenchModule {}

const adapter = values.adapter === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
const app = await NestFactory.create(BenchModule, adapter, { logger: false });
if (values.adapter !== 'fastify') app.getHttpAdapter().getInstance().disable('x-powered-by');
await app.listen(Number(values.port), '127.0.0.1');
console.log(`stack-server (${values.adapter}) on ${values.port}`);
