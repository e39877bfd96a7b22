import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { toErrorResponse } from './all-errors.filter.js';
import type { Reply } from './json-doc.js';
import { newRequestId, requestLogLevel, requestLogReq } from './logger.js';

export type LaneRequest = IncomingMessage;
export type LaneResponse = ServerResponse;

/** Decides the answer to a matched request; `params` are the decoded `:name` segments in order. */
export type LaneHandler = (req: LaneRequest, params: string[]) => Reply | Promise<Reply>;

export interface LaneRoute {
  /** `/api/stations/:id`: literal segments and `:name` parameters, no wildcards. */
  path: string;
  handler: LaneHandler;
  /** Further check of the parameters; false leaves the request to Express (and its errors). */
  accept?: (params: string[], req: LaneRequest) => boolean;
  /** Answer with `Access-Control-Allow-Origin: *` (the player reads these from other sites). */
  publicCors?: boolean;
  /** Write the request log line (liveness probes are not logged). */
  log?: boolean;
}

interface CompiledRoute extends LaneRoute {
  segments: (string | null)[];
}

/**
 * Puts `take` in front of the server's other `request` listeners (Express): a request it takes
 * (true) goes no further, any other goes on to them unchanged.
 */
export function takeRequestsFirst(
  server: Server,
  take: (req: IncomingMessage, res: ServerResponse) => boolean,
): void {
  const next = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!take(req, res)) for (const listener of next) listener.call(server, req, res);
  });
}

/** What `publicCors` adds on the public paths. */
const PUBLIC_CORS_HEADERS = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  'Retry-After, ETag',
];

/**
 * The few public GETs that every listener polls, answered before Express: Express's per-request
 * machinery alone costs several times a bare Node response. A route answers exactly as the Nest
 * route with the same path would (helmet's headers, public CORS, request id, the request log
 * line, error bodies); anything that does not match exactly (other methods, odd spellings,
 * invalid or unusual parameters) goes on to Express and Nest unchanged. A middleware added for
 * every request must be reflected here: fast-lane.spec compares both paths.
 */
export class FastLane {
  private readonly routes: CompiledRoute[] = [];
  private readonly common: string[];
  /** The request lines hold no secrets by construction: no redaction pass (it costs more than the rest). */
  private readonly requestLog: Logger;

  constructor(
    logger: Logger,
    /** Headers every response of the app carries (see `headersSetBy`). */
    commonHeaders: [string, string][],
    private readonly trustProxy: boolean,
  ) {
    this.common = commonHeaders.flat();
    this.requestLog = logger.child({}, { redact: { paths: [] } });
  }

  add(...routes: LaneRoute[]): this {
    for (const route of routes) {
      const segments = route.path
        .split('/')
        .slice(1)
        .map((s) => (s.startsWith(':') ? null : s));
      this.routes.push({ ...route, segments });
    }
    return this;
  }

  /** Puts the lane in front of the server's other `request` listeners (Express). */
  install(server: Server): void {
    takeRequestsFirst(server, (req, res) => this.handle(req, res));
  }

  /** Takes the request (true), or leaves it to the next handler (false). */
  handle(req: LaneRequest, res: LaneResponse): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url;
    if (!url || url.charCodeAt(0) !== 47 /* '/' */) return false;
    const q = url.indexOf('?');
    const parts = (q < 0 ? url : url.slice(0, q)).split('/');
    for (const route of this.routes) {
      const params = match(route.segments, parts);
      if (!params || (route.accept && !route.accept(params, req))) continue;
      this.serve(route, req, res, params);
      return true;
    }
    return false;
  }

  private serve(route: CompiledRoute, req: LaneRequest, res: LaneResponse, params: string[]) {
    const start = Date.now();
    const id = newRequestId(req);
    const finish = (reply: Reply, err?: unknown) => {
      const headers: (string | number)[] = [...this.common, 'x-request-id', id];
      if (route.publicCors) headers.push(...PUBLIC_CORS_HEADERS);
      headers.push(...reply.headers);
      if (res.headersSent || res.destroyed) res.destroy();
      else res.writeHead(reply.status, headers).end(reply.body);
      if (route.log !== false) this.log(req, res, id, start, err);
    };
    const fail = (err: unknown) => finish(errorReply(err), err);
    try {
      const reply = route.handler(req, params);
      if (reply instanceof Promise) reply.then(finish, fail);
      else finish(reply);
    } catch (err) {
      fail(err);
    }
  }

  private log(req: LaneRequest, res: LaneResponse, id: string, start: number, err: unknown) {
    const failed = err !== undefined && res.statusCode >= 500;
    const level = requestLogLevel(res.statusCode, failed);
    if (!this.requestLog.isLevelEnabled(level)) return;
    this.requestLog[level](
      {
        reqId: id,
        req: requestLogReq(req, remoteAddress(req, this.trustProxy)),
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - start,
        ...(failed ? { err } : {}),
      },
      failed ? 'request errored' : 'request completed',
    );
  }
}

/** The error body every route gives (see `AllErrorsFilter`). */
function errorReply(err: unknown): Reply {
  const { status, body, headers } = toErrorResponse(err);
  const json = JSON.stringify(body);
  return {
    status,
    headers: [
      ...Object.entries(headers ?? {}).flat(),
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      Buffer.byteLength(json),
    ],
    body: json,
  };
}

/** Never ours: Express's path checks answer these (control characters get a 400 there). */
const UNUSUAL = /[\u0000-\u001F\u007F]/;

/** The decoded parameters when `parts` (a path split on '/') fits `segments`, else null. */
function match(segments: (string | null)[], parts: string[]): string[] | null {
  if (parts.length !== segments.length + 1) return null;
  const params: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const part = parts[i + 1]!;
    const literal = segments[i];
    if (literal === null) {
      if (part === '') return null;
      let value = part;
      if (part.includes('%')) {
        try {
          value = decodeURIComponent(part);
        } catch {
          return null;
        }
        if (UNUSUAL.test(value)) return null;
      }
      params.push(value);
    } else if (part !== literal) return null;
  }
  return params;
}

/** As Express's `req.ip`: the client of the first proxy when proxies are trusted. */
export function remoteAddress(req: LaneRequest, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    if (typeof forwarded === 'string' && forwarded) return forwarded.split(',')[0]!.trim();
  }
  return req.socket.remoteAddress;
}

/** The headers a middleware sets on every response (helmet's set), read once at start-up. */
export function headersSetBy(
  middleware: (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void,
): [string, string][] {
  const headers = new Map<string, [string, string]>();
  const res = {
    setHeader(name: string, value: string | number | string[]) {
      headers.set(name.toLowerCase(), [name, String(value)]);
      return res;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader(name: string) {
      return headers.get(name.toLowerCase())?.[1];
    },
  };
  let failure: unknown;
  middleware(
    { method: 'GET', url: '/', headers: {} } as IncomingMessage,
    res as unknown as ServerResponse,
    (err) => (failure = err),
  );
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return [...headers.values()];
}
