import { Inject, Injectable, Logger } from '@nestjs/common';
import { redactAddress } from '../auth/auth.mailer.js';
import { lazy } from '../common/lazy.js';
import { OutboundPolicy, OutboundRefused } from '../common/outbound/outbound-policy.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import {
  FollowRepository,
  type NoticeKind,
  type NoticePayload,
  type PushSubscriptionRow,
} from './follow.repository.js';

/** How long a push service keeps a message for a browser that is offline. */
const TTL_SECONDS: Record<NoticeKind, number> = { live: 3600, before: 1800, start: 1800 };
const TIMEOUT_MS = 10_000;
/** web-push, loaded at the first notice rather than at start-up. */
const loadWebPush = lazy(async () => (await import('web-push')).default);

/** What the service worker (web/public/sw-push.js) shows. */
export interface PushMessage {
  title: string;
  body: string;
  url: string;
  tag: string;
}

export function pushMessage(kind: NoticeKind, p: NoticePayload): PushMessage {
  const show = p.showTitle ? `“${p.showTitle}”` : '';
  return {
    title:
      kind === 'live'
        ? `${p.stationName} is live`
        : kind === 'before'
          ? `${show} in 30 minutes`
          : `${show} is starting`,
    body:
      kind === 'live'
        ? `${p.showTitle ? `${p.showTitle} — ` : ''}@${p.broadcaster} just went live. Tap to listen.`
        : `On ${p.stationName} by @${p.broadcaster}. Tap to listen.`,
    url: p.url,
    tag: `station:${p.stationId}`,
  };
}

/** A transient failure (the push service or the network): the job is tried again. */
export class PushRetry extends Error {}

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads (RFC 8291), built by the
 * `web-push` library and sent through the outbound policy (no private addresses unless the
 * operator allows them, judged again after DNS). 404/410 from the push service: the subscription
 * is gone and removed.
 */
@Injectable()
export class PushNotifier {
  private readonly logger = new Logger('Push');

  constructor(
    @Inject(FollowRepository) private readonly repo: FollowRepository,
    @Inject(OutboundPolicy) private readonly outbound: OutboundPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get publicKey(): string | null {
    return this.config.vapid?.publicKey ?? null;
  }

  /** Why a subscription's endpoint is refused, or null (https only unless private networks are allowed). */
  endpointProblem(endpoint: string): string | null {
    const problem = this.outbound.urlProblem(endpoint);
    if (problem) return problem;
    if (!endpoint.startsWith('https://') && !this.outbound.allowPrivateNetworks)
      return 'must be an https URL';
    return null;
  }

  /** How many of the user's subscriptions took the message; throws {@link PushRetry} when none did for a passing reason. */
  async notify(userId: string, kind: NoticeKind, payload: NoticePayload): Promise<number> {
    const vapid = this.config.vapid;
    if (!vapid) return 0;
    const subs = await this.repo.pushSubscriptions(userId);
    const body = JSON.stringify(pushMessage(kind, payload));
    let sent = 0;
    let transient: string | null = null;
    for (const sub of subs) {
      const outcome = await this.send(sub, body, TTL_SECONDS[kind], kind === 'live');
      if (outcome === 'sent') sent++;
      else if (outcome !== 'gone') transient = outcome;
    }
    if (sent === 0 && transient) throw new PushRetry(transient);
    return sent;
  }

  private async send(
    sub: PushSubscriptionRow,
    body: string,
    ttl: number,
    urgent: boolean,
  ): Promise<'sent' | 'gone' | string> {
    const vapid = this.config.vapid!;
    const where = redactEndpoint(sub.endpoint);
    const webpush = await loadWebPush();
    let details: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      details = webpush.generateRequestDetails(
        { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
        body,
        {
          vapidDetails: vapid,
          TTL: ttl,
          contentEncoding: 'aes128gcm',
          urgency: urgent ? 'high' : 'normal',
        },
      );
    } catch (err) {
      // Keys the library cannot use: this subscription can never work.
      this.logger.warn(`push subscription ${where} dropped: ${(err as Error).message}`);
      await this.repo.removePushSubscription(sub.endpoint);
      return 'gone';
    }
    try {
      const res = await this.outbound.request(details.endpoint, {
        method: details.method,
        headers: details.headers as Record<string, string | number>,
        body: details.body ?? undefined,
        timeoutMs: TIMEOUT_MS,
      });
      if (res.status >= 200 && res.status < 300) return 'sent';
      if (res.status === 404 || res.status === 410) {
        await this.repo.removePushSubscription(sub.endpoint);
        this.logger.log(`push subscription ${where} expired (${res.status}): removed`);
        return 'gone';
      }
      if (res.status === 429 || res.status >= 500) return `push service answered ${res.status}`;
      // 400, 401, 403, 413: this message will never be taken there; not the subscription's end.
      this.logger.warn(`push to ${where} refused (${res.status})`);
      return 'gone';
    } catch (err) {
      if (err instanceof OutboundRefused) {
        await this.repo.removePushSubscription(sub.endpoint);
        this.logger.warn(`push subscription ${where} removed: ${err.message}`);
        return 'gone';
      }
      return `push service unreachable (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
}

/** The push service's host only: the path is the browser's capability. */
function redactEndpoint(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return redactAddress('?');
  }
}
