import { z } from 'zod';

/** C0 and C1 control characters (NUL included), except tab and line breaks. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** Tab and line breaks: fine in a description, not in a name. */
const LAYOUT = /[\t\n\r\u2028\u2029]/;
/** Embeddings, overrides and isolates: they make text display in another order than it is stored. */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
/** Spaces and characters that draw nothing (zero-width, fillers, joiners, marks). */
const INVISIBLE =
  /[\s\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u2060-\u2064\u206A-\u206F\u2800\u3164\uFEFF\uFFA0]/gu;

/**
 * Why a text users typed cannot be stored, in plain words, or null when it can: no control
 * characters, no text-direction overrides, and (unless it may be empty) something visible.
 */
export function textProblem(value: string, opts: { multiline?: boolean } = {}): string | null {
  if (CONTROL.test(value) || (!opts.multiline && LAYOUT.test(value)))
    return opts.multiline
      ? 'Remove the invisible control characters.'
      : 'Use one line, without invisible control characters.';
  if (BIDI.test(value)) return 'Remove the characters that reverse the text direction.';
  if (value.length > 0 && value.replace(INVISIBLE, '').length === 0)
    return 'Use some visible characters.';
  return null;
}

function checked<T extends z.ZodType<string>>(schema: T, multiline: boolean) {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value, { multiline });
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** A required one-line text (names, titles): trimmed, 1..max characters, see {@link textProblem}. */
export const singleLineText = (max: number) => checked(z.string().trim().min(1).max(max), false);

/** An optional one-line text (artist, album): trimmed, 0..max characters. */
export const optionalLineText = (max: number) => checked(z.string().trim().max(max), false);

/** A multi-line text (descriptions): trimmed, 0..max characters, line breaks and tabs allowed. */
export const multiLineText = (max: number) => checked(z.string().trim().max(max), true);

/**
 * Text another server's protocol receives as is (relay credentials, mounts, URLs): no control
 * character at all, tab and line breaks included (one would start a new protocol line), checked
 * before any trimming.
 */
export const withoutControls = (schema: z.ZodString) =>
  schema.refine(
    (v) => !CONTROL.test(v) && !/[\t\n\r]/.test(v),
    'must not contain control characters (line breaks, tabs, NUL...)',
  );
