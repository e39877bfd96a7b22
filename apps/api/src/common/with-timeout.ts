/** Rejects with "`what` timed out after N ms" when `p` has not settled by then. */
export function withTimeout<T>(p: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  // When the timeout wins, a later rejection of `p` must not surface as unhandled.
  p.catch(() => undefined);
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
