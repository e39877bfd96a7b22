/**
 * The SFU node's internal HTTP API plumbing: the shared-secret check, JSON bodies validated against
 * the route table, and errors as `{ error, message }`. What each route does is the node's business.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fastPathMetrics } from '../boundary/fast-paths.js';
import { CapacityError, SdpError } from '../media-engine.js';
import type { z } from 'zod';
import {
  nodeRoutes,
  nodeStreams,
  SFU_PARAMS_HEADER,
  SFU_SECRET_HEADER,
  type NodeStreamName,
  type NodeRequest,
  type NodeResponse,
  type NodeRouteName,
} from '../protocol/schemas.js';

const MAX_BODY = 256 * 1024;

/** A refusal with its status, error tag and any extra headers (`Retry-After`). */
export class NodeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export type NodeHandlers = {
  [R in NodeRouteName]: (body: NodeRequest<R>) => Promise<NodeResponse<R>> | NodeResponse<R>;
};

/** A streaming route takes the request and response over once its parameters are valid. */
export type NodeStreamHandlers = {
  [S in NodeStreamName]: (
    params: z.infer<(typeof nodeStreams)[S]['params']>,
    req: IncomingMessage,
    res: ServerResponse,
  ) => Promise<void> | void;
};

const byStream = new Map<string, NodeStreamName>(
  (Object.keys(nodeStreams) as NodeStreamName[]).map((name) => [
    `${nodeStreams[name].method} ${nodeStreams[name].path}`,
    name,
  ]),
);

const byRoute = new Map<string, NodeRouteName>(
  (Object.keys(nodeRoutes) as NodeRouteName[]).map((name) => [
    `${nodeRoutes[name].method} ${nodeRoutes[name].path}`,
    name,
  ]),
);

/**
 * `GET /health` (container health checks) and `GET /metrics` (Prometheus text: which fast paths into
 * werift/Node internals are active) answer without the secret; everything else needs it.
 */
export function createNodeHttpServer(
  secret: string,
  handlers: NodeHandlers,
  streams: NodeStreamHandlers,
): Server {
  const want = Buffer.from(secret);
  const authorized = (req: IncomingMessage) => {
    const got = Buffer.from(String(req.headers[SFU_SECRET_HEADER] ?? ''));
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(status, { ...headers, 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    try {
      if (req.url === '/health' && req.method === 'GET') return send(200, { status: 'ok' });
      if (req.url === '/metrics' && req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
        return void res.end(fastPathMetrics());
      }
      if (!authorized(req)) throw new NodeHttpError(401, 'Unauthorized', 'bad or missing secret');
      const stream = byStream.get(`${req.method} ${req.url}`);
      if (stream) {
        let raw: unknown;
        try {
          raw = JSON.parse(String(req.headers[SFU_PARAMS_HEADER] ?? ''));
        } catch {
          throw new NodeHttpError(400, 'BadRequest', `${SFU_PARAMS_HEADER} must be JSON`);
        }
        const params = nodeStreams[stream].params.safeParse(raw);
        if (!params.success) throw new NodeHttpError(400, 'BadRequest', params.error.message);
        const handler = streams[stream] as (
          p: unknown,
          req: IncomingMessage,
          res: ServerResponse,
        ) => Promise<void> | void;
        return await handler(params.data, req, res);
      }
      const name = byRoute.get(`${req.method} ${req.url}`);
      if (!name) throw new NodeHttpError(404, 'NotFound', `no route ${req.method} ${req.url}`);
      const route = nodeRoutes[name];
      const parsed = route.request.safeParse(route.method === 'GET' ? undefined : await body(req));
      if (!parsed.success) throw new NodeHttpError(400, 'BadRequest', parsed.error.message);
      const handler = handlers[name] as (b: unknown) => Promise<unknown> | unknown;
      return send(200, await handler(parsed.data));
    } catch (err) {
      if (err instanceof NodeHttpError)
        return send(err.status, { error: err.tag, message: err.message }, err.headers);
      if (err instanceof SdpError) return send(400, { error: 'SdpError', message: err.message });
      if (err instanceof CapacityError)
        return send(503, { error: 'CapacityError', message: err.message });
      console.error('[sfu-node] request failed', err);
      return send(500, { error: 'Error', message: (err as Error)?.message ?? String(err) });
    }
  };
  return createServer((req, res) => void handle(req, res));
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new NodeHttpError(413, 'BadRequest', 'body too large');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new NodeHttpError(400, 'BadRequest', 'body must be JSON');
  }
}
