import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { AppError } from './app-error.js';

/** Validates a body/param with a contract schema: 400 naming every offending field. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    return parseOrThrow(this.schema, value);
  }
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => {
    const path =
      issue.path.join('.') ||
      (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : '(body)');
    return { path, message: issue.message };
  });
  const message = `Invalid request: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`;
  return ((): never => {
    throw AppError.validation(message, fields);
  })();
}
