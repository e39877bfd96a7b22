import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { AppError } from '../common/app-error.js';
import { lazy } from '../common/lazy.js';

/** zxcvbn's "safely unguessable" (about 10^8 guesses or more): common and leaked-style passwords fail. */
const MIN_SCORE = 3;

/** The dictionaries are large: loaded once per process, at the first check, not at start-up. */
const zxcvbn = lazy(async (): Promise<ZxcvbnFactory> => {
  const [{ ZxcvbnFactory }, common, en] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]);
  return new ZxcvbnFactory({
    translations: en.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary },
  });
});

/** Who the password belongs to: a password made of these is refused. */
export interface PasswordOwner {
  email: string;
  username?: string;
  name?: string;
}

/**
 * Refuses a weak password with a 400 naming the `password` field and a plain-words reason:
 * one that contains the email address (or its local part), or that zxcvbn scores below 3
 * against common passwords, English words, keyboard patterns and the owner's own details.
 */
export async function assertStrongPassword(password: string, owner: PasswordOwner): Promise<void> {
  const lower = password.toLowerCase();
  const email = owner.email.toLowerCase();
  const local = email.split('@')[0] ?? '';
  if (lower.includes(email) || (local.length >= 3 && lower.includes(local))) {
    throw weak('Your password must not contain your email address.');
  }
  const inputs = [email, local, owner.username, owner.name].filter((s): s is string => !!s);
  const result = await (await zxcvbn()).checkAsync(password, inputs);
  if (result.score >= MIN_SCORE) return;
  const reason = result.feedback.warning
    ? `${result.feedback.warning}`
    : 'This password is too easy to guess.';
  const hint = result.feedback.suggestions[0] ?? 'Use a few uncommon words or a longer phrase.';
  throw weak(`${reason.replace(/\.?$/, '.')} ${hint.replace(/\.?$/, '.')}`);
}

function weak(message: string): AppError {
  return AppError.validation(`Invalid request: password: ${message}`, [
    { path: 'password', message },
  ]);
}
