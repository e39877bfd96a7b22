import {
  describeOutboundError,
  OutboundRefused,
  type OutboundPolicy,
} from '../common/outbound/outbound-policy.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResponse {
  /** The receiver's status, or null when none came. */
  status: number | null;
  error: string | null;
  /** The first bytes of the answer. */
  body: string | null;
  durationMs: number;
  /** `Retry-After` in seconds, when a 429/503 carried one. */
  retryAfterSeconds: number | null;
  /** The outbound policy refused the address (after DNS): the endpoint is paused. */
  refused?: boolean;
}

/** Sends one webhook request; a fake stands in for it in unit tests. */
export abstract class WebhookSender {
  abstract send(req: WebhookRequest): Promise<WebhookResponse>;
}

const RESPONSE_BODY_MAX = 1024;

/**
 * Plain HTTP(S) POST with a hard timeout through the outbound policy (no private addresses unless
 * the operator allows them, checked after DNS); redirects are not followed (a 3xx is a failure).
 */
export class HttpWebhookSender extends WebhookSender {
  constructor(private readonly policy: OutboundPolicy) {
    super();
  }

  async send(req: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const done = (partial: Omit<WebhookResponse, 'durationMs'>): WebhookResponse => ({
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    const failed = (error: string, refused = false) =>
      done({
        status: null,
        error,
        body: null,
        retryAfterSeconds: null,
        ...(refused ? { refused } : {}),
      });
    if (this.policy.urlProblem(req.url) === 'not a valid URL') return failed('Invalid URL');
    try {
      const res = await this.policy.request(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        timeoutMs: req.timeoutMs,
        maxBodyBytes: RESPONSE_BODY_MAX,
      });
      const redirect = res.status >= 300 && res.status < 400;
      const retry = res.headers['retry-after'];
      return done({
        status: res.status,
        error: redirect ? 'Redirects are not followed' : null,
        body: res.body.toString('utf8') || null,
        retryAfterSeconds: retryAfter(Array.isArray(retry) ? retry[0] : retry),
      });
    } catch (err) {
      if (err instanceof OutboundRefused) return failed(err.message, true);
      if ((err as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
        return failed(`No answer within ${Math.round(req.timeoutMs / 1000)} s`);
      }
      return failed(describeOutboundError(err));
    }
  }
}

function retryAfter(header: string | undefined): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((at - Date.now()) / 1000));
}
