import type { PipeTransform } from '@nestjs/common';
import { fieldProblems, plainIssueMessage } from '@radiobroadcaster/contracts';
import type { z } from 'zod';
import { AppError } from './app-error.js';

/** Validates a body/param with a contract schema: 400 naming every offending field in plain words. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    return parseOrThrow(this.schema, value);
  }
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {}, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const fields = fieldProblems(parsed.error);
  const message = `Invalid request: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`;
  return ((): never => {
    throw AppError.validation(message, fields);
  })();
}
