import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger as NestLogger } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino';
import { type Options as HttpLoggerOptions, pinoHttp } from 'pino-http';
import PinoPretty from 'pino-pretty';
import type { Logger as TypeOrmLogger, QueryRunner } from 'typeorm';

/** Secrets never reach the logs, whoever logs these objects. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-sfu-secret"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.streamKey',
];

/** Query parameters whose values are credentials (verification links, WHEP tokens, …). */
const SECRET_PARAM = /token|secret|passw|key|sig|code|auth|session|credential/i;

/** The URL with the values of credential-like query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).replace(/([^&=]+)=([^&]*)/g, (pair, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judge the raw name.
    }
    return SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${query}`;
}

/**
 * The one pino logger of the process: JSON lines on stdout, or readable colour lines when
 * stdout is a terminal. `destination` replaces stdout (tests).
 */
export function createPino(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  if (process.stdout.isTTY) return pino(options, prettyStream());
  return pino(options, stdoutDestination());
}

/** The longest log lines still waiting for stdout may hold up the process's exit. */
export const EXIT_FLUSH_MS = 1000;

/** When the process must be gone at the latest (set by a shutdown: its deadline). */
let exitBy = Infinity;

/** Logs waiting for stdout hold up the exit until `deadline` (epoch ms) at the latest. */
export function flushLogsAtExitBy(deadline: number): void {
  exitBy = Math.min(exitBy, deadline);
}

type Destination = ReturnType<typeof pino.destination>;

/** Past this (epoch ms) a full stdout pipe is no longer waited on: set when the process exits. */
let giveUpAt = Infinity;

/** The stdout destinations to flush at exit (one per app; tests build several in one process). */
const toFlush = new Set<WeakRef<Destination>>();
let flushingAtExit = false;

/**
 * stdout, written asynchronously: a burst of requests costs a few large writes, not one syscall
 * each. At exit pino writes what is left synchronously, and on a pipe its reader no longer reads
 * (a full pipe: EAGAIN) it would retry every 100 ms for ever, blocking the exit and every timer:
 * here that flush stops at `EXIT_FLUSH_MS` or the shutdown's deadline, and the rest is dropped.
 */
function stdoutDestination(): DestinationStream {
  // Node makes a stdout pipe non-blocking when process.stdout is first read (createPino's isTTY, so
  // before any line): a full pipe answers EAGAIN. A blocking one would hold a thread-pool thread in
  // write(), and process.exit, which waits for those threads, for ever.
  const stdout = pino.destination({
    dest: 1,
    sync: false,
    // A full pipe is waited on while the process runs (asynchronously); at exit until `giveUpAt`.
    retryEAGAIN: () => Date.now() < giveUpAt,
  });
  // Before pino's own flush at exit (which retries for ever), so that one finds nothing to do.
  if (!flushingAtExit) process.prependListener('exit', flushWithinLimit);
  flushingAtExit = true;
  for (const ref of toFlush) if (!ref.deref()) toFlush.delete(ref);
  toFlush.add(new WeakRef(stdout));
  return stdout;
}

function flushWithinLimit(): void {
  giveUpAt = Math.min(Date.now() + EXIT_FLUSH_MS, exitBy);
  for (const ref of toFlush) {
    const stdout = ref.deref();
    try {
      stdout?.flushSync();
    } catch {
      // Nobody reads stdout (or it is gone): the lines left are dropped, pino's flush skipped.
      stdout?.destroy();
    }
  }
}

/** What a log record may carry that the terminal line puts in its message. */
interface PrettyRecord {
  context?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/**
 * One short coloured line per record for a person at a terminal: `[12:34:56.789] INFO: (Context)
 * message`; a request reads `GET /api/… 200 3 ms`. Anything else a record carries follows on the same
 * line; an error's stack below it.
 */
export function prettyStream() {
  return PinoPretty({
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context,req,res,responseTime,reqId',
    singleLine: true,
    messageFormat: (log, messageKey) =>
      prettyMessage(log as PrettyRecord, String(log[messageKey] ?? '')),
  });
}

export function prettyMessage(log: PrettyRecord, msg: string): string {
  const context = log.context ? `(${log.context}) ` : '';
  if (log.req && log.res) {
    const time = log.responseTime === undefined ? '' : ` ${log.responseTime} ms`;
    return `${context}${log.req.method ?? ''} ${log.req.url ?? ''} ${log.res.statusCode ?? ''}${time}`;
  }
  return `${context}${msg}`;
}

type Req = IncomingMessage & { originalUrl?: string; ip?: string; id?: unknown };

/** The request's id: the proxy's `x-request-id` when it is sane, else a new one. */
export function newRequestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * What the request log line says about the request, kept small because every listener polls:
 * method, URL (credentials removed), client address; no headers.
 */
export function requestLogReq(
  req: Req,
  remoteAddress: string | undefined,
): { method?: string; url: string; remoteAddress?: string } {
  return { method: req.method, url: redactUrl(req.originalUrl ?? req.url ?? ''), remoteAddress };
}

export function requestLogLevel(statusCode: number, failed: boolean): 'error' | 'warn' | 'info' {
  return failed || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
}

/** One line per request: its id, `requestLogReq`, the status and the time taken. */
export function httpLoggerOptions(logger: Logger): HttpLoggerOptions<Req, ServerResponse> {
  return {
    logger,
    quietReqLogger: true,
    wrapSerializers: false,
    serializers: {
      req: (req: Req) => requestLogReq(req, req.ip ?? req.socket?.remoteAddress),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: stdSerializers.err,
    },
    genReqId: (req, res) => {
      const id = newRequestId(req);
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel: (_req, res, err) => requestLogLevel(res.statusCode, !!err),
    autoLogging: { ignore: (req) => req.url === '/health/live' },
  };
}

/** The request logger, mounted first so it times and records every request. */
export function httpLogger(logger: Logger) {
  return pinoHttp(httpLoggerOptions(logger));
}

/**
 * nestjs-pino on the same logger: Nest's own lines and every `new Logger(ctx)` go to pino, and
 * lines logged while handling a request carry its `reqId` (the request logger above sets it).
 */
export function loggerModuleParams(logger: Logger): Params {
  return { pinoHttp: { logger }, useExisting: true };
}

/** TypeORM's errors and migrations through Nest's logger, without query parameters (secrets). */
export class TypeOrmPinoLogger implements TypeOrmLogger {
  private readonly logger = new NestLogger('TypeORM');

  logQuery(): void {}

  /** Debug: callers handle the expected ones (unique violations); the rest reach the error filter. */
  logQueryError(error: string | Error, query: string, _parameters?: unknown[]): void {
    this.logger.debug(`query failed: ${messageOf(error)} (${truncate(query)})`);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${truncate(query)}`);
  }

  logSchemaBuild(message: string): void {
    this.logger.debug(message);
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown, _queryRunner?: QueryRunner): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}

function messageOf(error: string | Error): string {
  return typeof error === 'string' ? error : error.message;
}

function truncate(query: string): string {
  return query.length > 300 ? `${query.slice(0, 300)}…` : query;
}
