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
 * Characters that draw nothing of their own anywhere in a text: every format character (Unicode
 * category Cf: zero-width space, joiners, soft hyphen, direction marks and isolates, word joiner,
 * byte order mark, tag characters), variation selectors, the combining grapheme joiner, Hangul
 * fillers, the blank braille pattern and Khmer's invisible vowels.
 */
const HIDDEN =
  /[\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2800\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
/**
 * Where such characters belong to something visible: emoji sequences (👨‍👩‍👧 joined, ❤️ with its
 * selector, 1️⃣ keycaps, 🏴 with tags, skin tones), and a joiner or non-joiner between letters of
 * the scripts that write with them (Persian, Arabic, the Indic scripts), where it changes the
 * shapes.
 */
const JOINED_SCRIPT =
  '[\\p{Script=Arabic}\\p{Script=Syriac}\\p{Script=Devanagari}\\p{Script=Bengali}\\p{Script=Gurmukhi}\\p{Script=Gujarati}\\p{Script=Oriya}\\p{Script=Tamil}\\p{Script=Telugu}\\p{Script=Kannada}\\p{Script=Malayalam}\\p{Script=Sinhala}]\\p{M}*';
const VISIBLE_USES = new RegExp(
  [
    '\\p{Emoji}(?:\\p{EMod}|[\\uFE0E\\uFE0F]|[\\u{E0020}-\\u{E007E}]+\\u{E007F})?\\u20E3?(?:\\u200D\\p{Emoji}(?:\\p{EMod}|[\\uFE0E\\uFE0F])?\\u20E3?)*',
    `(?<=${JOINED_SCRIPT})[\\u200C\\u200D](?=${JOINED_SCRIPT})`,
  ].join('|'),
  'gu',
);

/** Whether `value` holds a character that shows nothing (see {@link HIDDEN}) outside emoji and joined scripts. */
export function hasHiddenCharacters(value: string): boolean {
  return HIDDEN.test(value) && HIDDEN.test(value.replace(VISIBLE_USES, ''));
}

export interface TextRules {
  /** Tabs and line breaks allowed (descriptions). */
  multiline?: boolean;
  /**
   * Refuse characters that show nothing anywhere in the text, not only a text made of nothing
   * else (station names and descriptions, people's names: what others read and could be misled by).
   */
  visibleOnly?: boolean;
}

/**
 * Why a text users typed cannot be stored, in plain words, or null when it can: no control
 * characters, no text-direction overrides, and (unless it may be empty) something visible.
 */
export function textProblem(value: string, opts: TextRules = {}): string | null {
  if (CONTROL.test(value) || (!opts.multiline && LAYOUT.test(value)))
    return opts.multiline
      ? 'Remove the invisible control characters.'
      : 'Use one line, without invisible control characters.';
  if (BIDI.test(value)) return 'Remove the characters that reverse the text direction.';
  if (value.length > 0 && value.replace(INVISIBLE, '').length === 0)
    return 'Use some visible characters.';
  if (opts.visibleOnly && hasHiddenCharacters(value))
    return 'Remove the invisible characters (such as zero-width spaces or direction marks).';
  return null;
}

function checked<T extends z.ZodType<string>>(schema: T, rules: TextRules) {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value, rules);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** A required one-line text (names, titles): trimmed, 1..max characters, see {@link textProblem}. */
export const singleLineText = (max: number, rules: Omit<TextRules, 'multiline'> = {}) =>
  checked(z.string().trim().min(1).max(max), { ...rules, multiline: false });

/** An optional one-line text (artist, album): trimmed, 0..max characters. */
export const optionalLineText = (max: number) =>
  checked(z.string().trim().max(max), { multiline: false });

/** A multi-line text (descriptions): trimmed, 0..max characters, line breaks and tabs allowed. */
export const multiLineText = (max: number, rules: Omit<TextRules, 'multiline'> = {}) =>
  checked(z.string().trim().max(max), { ...rules, multiline: true });

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
