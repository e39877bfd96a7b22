import type { Request } from 'express';

/**
 * The origin the client addressed: scheme and `Host` (`X-Forwarded-Proto`/`-Host` only with
 * TRUST_PROXY, through Express's `trust proxy`). A browser cannot forge the `Host` of a
 * cross-site request, so a request whose `Origin` equals this is same-origin.
 */
export function requestOrigin(req: Request): string | null {
  const host = req.host;
  if (!host) return null;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return null;
  }
}

/** The origin of an `Origin` header, or null when missing, not a URL, or `null` (sandboxed frames). */
export function originOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  try {
    const o = new URL(header).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/**
 * Where links and URLs handed to clients point: the origin the client used when it is one of
 * ours (so a page opened at 127.0.0.1 gets 127.0.0.1 URLs), else PUBLIC_URL. Never a
 * client-supplied `Host` we do not know.
 */
export function publicBaseUrl(
  req: Request,
  config: { publicUrl: string; trustedOrigins: readonly string[] },
): string {
  const own = requestOrigin(req);
  return own && config.trustedOrigins.includes(own) ? own : config.publicUrl;
}
