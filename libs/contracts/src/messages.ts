import type { z } from 'zod';

/**
 * A validation problem in plain words, meant to sit next to the field it is about ("Use at most 80
 * characters."), never zod's own developer wording. Schemas may still give their own message; it wins.
 * Pass it as the `error` option: `schema.safeParse(value, { error: plainIssueMessage })`.
 */
export const plainIssueMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null) return 'This is required.';
      return issue.expected === 'string' ? 'Enter text here.' : `Enter a ${issue.expected}.`;
    case 'too_small': {
      const n = Number(issue.minimum);
      if (issue.origin === 'string') {
        return n <= 1 ? 'This is required.' : `Use at least ${n} characters.`;
      }
      if (issue.origin === 'array') return n <= 1 ? 'Add at least one.' : `Add at least ${n}.`;
      return `Enter ${n} or more.`;
    }
    case 'too_big': {
      const n = Number(issue.maximum);
      if (issue.origin === 'string') return `Use at most ${n} characters.`;
      if (issue.origin === 'array') return `Add at most ${n}.`;
      if (issue.origin === 'file') return `Use a file of at most ${formatBytes(n)}.`;
      return `Enter ${n} or less.`;
    }
    case 'invalid_format':
      return FORMATS[issue.format] ?? 'This is not in the expected format.';
    case 'invalid_value':
      return `Choose one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys':
      return `Not a field we know: ${issue.keys.join(', ')}.`;
    case 'not_multiple_of':
      return `Enter a multiple of ${String(issue.divisor)}.`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return undefined;
  }
};

const FORMATS: Record<string, string> = {
  email: 'Enter an e-mail address, like name@example.com.',
  url: 'Enter a web address, like https://example.com.',
  uuid: 'This is not a valid id.',
};

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** One offending field of a 400 answer: `path` is the dotted field name, `message` plain words. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Every issue of a failed parse as field problems, in plain words. */
export function fieldProblems(error: z.core.$ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    path:
      issue.path.join('.') ||
      (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : '(body)'),
    message: issue.message,
  }));
}
