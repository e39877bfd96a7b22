/** A failure at start-up that is the operator's to fix (configuration, unreachable servers): printed without a stack. */
export class StartupError extends Error {}

/** A connection URL without its password, for messages and logs (`variable` names it when unparsable). */
export function redactUrl(url: string, variable: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return `(unparsable ${variable})`;
  }
}

/** Why a connection failed, in one line (Node reports a refused `localhost` as an AggregateError over IPv4 and IPv6). */
export function connectionFailure(err: Error): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  const first = e.errors?.[0] as (Error & { code?: string }) | undefined;
  const text = first?.message || e.message || e.code || 'unknown error';
  return text.replace(/\s+/g, ' ').trim();
}
