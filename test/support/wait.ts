/**
 * Waiting on a condition, never on the clock: every test helper and spec that has to wait for
 * something polls for it with a deadline here (a loaded 2-core CI machine takes its time; a fixed sleep
 * is either too short there or wasted everywhere else).
 */

/** Polls `cond` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. Returns the ms waited. */
export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 50,
): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await cond()) return Date.now() - t0;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls `fn` every 100 ms until `ok` holds of its value, and returns it; throws with the last value after `ms`. */
export async function until<T>(
  what: string,
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  let last = await fn();
  while (!ok(last)) {
    if (Date.now() > end) {
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(last)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

/**
 * Resolves once `cond` has held for the whole of `ms` (checked every `everyMs`); throws naming `what`
 * as soon as it does not. For "nothing happens": a listener stays connected, no message arrives.
 */
export async function holdsFor(
  cond: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
  everyMs = 50,
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await cond())) throw new Error(`no longer true: ${what}`);
    if (Date.now() >= end) return;
    await new Promise((r) => setTimeout(r, Math.min(everyMs, end - Date.now())));
  }
}

/**
 * `promise`, or a rejection naming `what` if it has not settled within `ms`. The deadline's timer is
 * cleared either way: one left armed keeps Jest's process alive after the file's last test.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
