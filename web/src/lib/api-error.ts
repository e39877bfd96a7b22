import { ErrorTag, type FieldProblem } from '@radiobroadcaster/contracts';

/**
 * A non-OK response. The message has one exact form, shared with the player,
 * 'API call failed: {status} {statusText} - {body text}', so retry rules and logs can read it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The `error` tag of a `{ error, message }` body, when the body has one. */
  readonly tag: string | undefined;
  /** The body's own `message`, when it has one. */
  readonly serverMessage: string | undefined;
  /** A 400's offending fields, each with a plain-words message. */
  readonly fields: FieldProblem[];

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly bodyText: string,
  ) {
    super(`API call failed: ${status} ${statusText} - ${bodyText}`);
    const parsed = parseErrorBody(bodyText);
    this.tag = parsed.tag;
    this.serverMessage = parsed.message;
    this.fields = parsed.fields ?? [];
  }
}

/**
 * The one wording for a request that got no answer, on screen and in toasts (the spec's toast
 * texts; the player says the same).
 */
export const NETWORK_ERROR_TEXT = {
  title: 'Connection failed',
  description: 'Please check your internet connection and try again.',
} as const;

/** The request never got an answer (offline, DNS, connection refused, no answer in time). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly tag = ErrorTag.NetworkError;
  constructor(cause: unknown) {
    super('Network request failed', { cause });
  }
}

export function parseErrorBody(text: string): {
  tag?: string;
  message?: string;
  fields?: FieldProblem[];
} {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object') {
      const { error, message, fields } = body as {
        error?: unknown;
        message?: unknown;
        fields?: unknown;
      };
      return {
        tag: typeof error === 'string' ? error : undefined,
        message: typeof message === 'string' ? message : undefined,
        fields: Array.isArray(fields)
          ? fields.filter(
              (f): f is FieldProblem =>
                !!f &&
                typeof f === 'object' &&
                typeof (f as FieldProblem).path === 'string' &&
                typeof (f as FieldProblem).message === 'string',
            )
          : undefined,
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

/**
 * A short message in plain words for an error: the server's own message when it is meant for people,
 * each field's problem for a validation failure, and a sentence of our own for outages.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.fields.length > 0) return describeFields(err.fields);
    if (err.status >= 500) return 'Something went wrong on our side. Please try again in a moment.';
    return err.serverMessage ?? err.message;
  }
  if (err instanceof NetworkError) {
    return `${NETWORK_ERROR_TEXT.title}. ${NETWORK_ERROR_TEXT.description}`;
  }
  if (err instanceof Error && err.message) return err.message;
  if (typeof err === 'string' && err) return err;
  return 'Unknown error';
}

/** 'Name: Use at most 80 characters.' for each field, with field names people read. */
export function describeFields(
  fields: readonly FieldProblem[],
  labels: Record<string, string> = {},
) {
  return fields.map((f) => `${labels[f.path] ?? humanize(f.path)}: ${f.message}`).join(' ');
}

function humanize(path: string): string {
  const last = path.split('.').pop() ?? path;
  const words = last.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

export function isApiStatus(err: unknown, status: number): boolean {
  return err instanceof ApiError && err.status === status;
}

/** A 4xx answer: the request itself is wrong, so sending it again cannot help. */
export function isClientError(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500;
}
