import type { z } from 'zod';

/**
 * A JSON record read from Redis, checked against its schema: the value, or null when the key was
 * missing, the text is not JSON or the record does not match (a record another version wrote, or a
 * damaged one, reads as absent rather than failing the caller). The one copy, for the SFU's node
 * registry and session routes and the API's session store.
 */
export function parseRedisJson<T>(schema: z.ZodType<T>, raw: string | null | undefined): T | null {
  if (!raw) return null;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
