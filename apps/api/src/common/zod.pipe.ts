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

/**
 * The type a {@link ZodPipe} hands a handler: `@Body(new ZodPipe(X)) body: Parsed<typeof X>`. Not `body: X`
 * where a contract names its schema and its type alike: tsc writes `Object` as that parameter's
 * `design:type` (a type alias), but a per-file transform (swc, in the tests) has no types and writes the
 * schema object itself, on which @nestjs/swagger fails to build /api/docs-json. A generic alias is
 * `Object` to both.
 */
export type Parsed<S extends z.ZodType> = z.infer<S>;

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {}, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const fields = fieldProblems(parsed.error);
  const message = `Invalid request: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`;
  return ((): never => {
    throw AppError.validation(message, fields);
  })();
}
