import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import { ErrorTag, type ErrorBody } from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import { AppError, statusOf } from './app-error.js';

const TAG_BY_STATUS: Record<number, ErrorTag> = {
  400: ErrorTag.ValidationError,
  401: ErrorTag.Unauthorized,
  403: ErrorTag.Forbidden,
  404: ErrorTag.NotFound,
  405: ErrorTag.MethodNotAllowed,
  409: ErrorTag.Conflict,
  413: ErrorTag.PayloadTooLarge,
  415: ErrorTag.UnsupportedMediaType,
  429: ErrorTag.RateLimited,
  503: ErrorTag.ServiceUnavailable,
};

/** Turns any thrown value into `{ error, message }` with the right status; the one error shaper. */
export function toErrorResponse(err: unknown): {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
} {
  if (err instanceof AppError) {
    const body: ErrorBody = { error: err.tag, message: err.message };
    if (err.fields) body.fields = err.fields;
    return { status: statusOf(err.tag), body, headers: err.headers };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const res = err.getResponse();
    const raw = typeof res === 'string' ? res : (res as { message?: unknown }).message;
    const message = Array.isArray(raw)
      ? raw.join('; ')
      : typeof raw === 'string'
        ? raw
        : err.message;
    return { status, body: { error: TAG_BY_STATUS[status] ?? ErrorTag.InternalError, message } };
  }
  // body-parser errors carry a status (413 too large, 400 malformed JSON, 415 charset).
  const e = err as { status?: number; type?: string; message?: string } | null;
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    const message =
      e.type === 'entity.too.large'
        ? 'Request body too large'
        : e.type === 'entity.parse.failed'
          ? 'Malformed JSON body'
          : (e.message ?? 'Bad request');
    return {
      status: e.status,
      body: { error: TAG_BY_STATUS[e.status] ?? ErrorTag.ValidationError, message },
    };
  }
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: { error: ErrorTag.InternalError, message: 'Internal server error' },
  };
}

@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(err: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = toErrorResponse(err);
    if (status >= 500)
      this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    if (res.headersSent) return;
    if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  }
}
