import { ErrorTag } from '@radiobroadcaster/contracts';

/**
 * A non-OK response. The message is the spec's exact form,
 * 'API call failed: {status} {statusText} - {body text}', so retry rules and logs can read it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The `error` tag of a `{ error, message }` body, when the body has one. */
  readonly tag: string | undefined;
  /** The body's own `message`, when it has one. */
  readonly serverMessage: string | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly bodyText: string,
  ) {
    super(`API call failed: ${status} ${statusText} - ${bodyText}`);
    const parsed = parseErrorBody(bodyText);
    this.tag = parsed.tag;
    this.serverMessage = parsed.message;
  }
}

/** The request never got an answer (offline, DNS, connection refused). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly tag = ErrorTag.NetworkError;
  constructor(cause: unknown) {
    super('Network request failed', { cause });
  }
}

export function parseErrorBody(text: string): { tag?: string; message?: string } {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object') {
      const { error, message } = body as { error?: unknown; message?: unknown };
      return {
        tag: typeof error === 'string' ? error : undefined,
        message: typeof message === 'string' ? message : undefined,
      };
    }
  } catch {
    // Not JSON: fall through to the text itself.
  }
  return {};
}

/** The error tag of anything thrown by the API client, or parsed out of a message's body text. */
export function errorTag(err: unknown): string | undefined {
  if (err instanceof ApiError || err instanceof NetworkError) return err.tag;
  // Errors from other clients (the player library) and plain `{ tag }` objects.
  if (err && typeof err === 'object' && 'tag' in err && typeof err.tag === 'string') return err.tag;
  if (err instanceof Error) {
    const i = err.message.indexOf(' - ');
    if (err.message.startsWith('API call failed:') && i >= 0) {
      return parseErrorBody(err.message.slice(i + 3)).tag;
    }
  }
  return undefined;
}

/** A short human message for an error: the server's own message when there is one. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? err.message;
  if (err instanceof Error && err.message) return err.message;
  if (typeof err === 'string' && err) return err;
  return 'Unknown error';
}

export function isApiStatus(err: unknown, status: number): boolean {
  return err instanceof ApiError && err.status === status;
}
