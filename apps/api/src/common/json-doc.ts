import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A response body serialised once, with the validator conditional requests compare. */
export interface JsonDoc {
  body: string;
  etag: string;
  length: number;
}

export function jsonDoc(value: unknown): JsonDoc {
  const body = JSON.stringify(value);
  // Weak: proxies that compress the body keep a weak validator.
  const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
  return { body, etag, length: Buffer.byteLength(body) };
}

/**
 * Public reads every listener polls (every 2 s): a CDN or proxy may answer for a second and
 * serve it stale for one more while it revalidates, so nobody sees a status older than a poll.
 */
export const PUBLIC_POLL_CACHE_CONTROL = 'public, max-age=1, stale-while-revalidate=1';

/** A response decided but not yet written: status, its own headers (name, value, …), body. */
export interface Reply {
  status: number;
  headers: (string | number)[];
  body?: string;
}

/** `doc`, or 304 with no body when the client already holds it (`If-None-Match`). */
export function docReply(req: IncomingMessage, doc: JsonDoc, cacheControl: string): Reply {
  const headers: (string | number)[] = ['Cache-Control', cacheControl, 'ETag', doc.etag];
  if (matches(req.headers['if-none-match'], doc.etag)) return { status: 304, headers };
  headers.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', doc.length);
  return { status: 200, headers, body: doc.body };
}

/** Writes `reply` on a response other headers were already set on (Express, Nest). */
export function sendReply(res: ServerResponse, reply: Reply): void {
  for (let i = 0; i < reply.headers.length; i += 2) {
    res.setHeader(reply.headers[i] as string, reply.headers[i + 1]!);
  }
  res.statusCode = reply.status;
  res.end(reply.body);
}

/** Weak comparison (RFC 9110 13.1.2): `W/` is ignored, `*` matches anything. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  const tag = etag.startsWith('W/') ? etag.slice(2) : etag;
  return header.split(',').some((candidate) => {
    const c = candidate.trim();
    return c === '*' || (c.startsWith('W/') ? c.slice(2) : c) === tag;
  });
}
