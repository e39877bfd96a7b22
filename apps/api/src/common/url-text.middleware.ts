import type { NextFunction, Request, Response } from 'express';
import { AppError } from './app-error.js';
import { toErrorResponse } from './all-errors.filter.js';

const CONTROL = /[\u0000-\u001F\u007F]/;

/**
 * A path whose decoded form holds control characters (`/api/users/a%00b/stations`) names nothing
 * we serve: 400 before any route passes it to the database, which refuses NUL bytes.
 */
export function rejectControlCharactersInPath(
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    path = req.path;
  }
  if (!CONTROL.test(path)) return next();
  const { status, body } = toErrorResponse(
    AppError.validation('The address must not contain control characters'),
  );
  res.status(status).json(body);
}
