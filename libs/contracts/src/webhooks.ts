import { z } from 'zod';
import { StationId } from './station.js';

/** The events a station's webhook can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'station.live',
  'station.offline',
  'now_playing.changed',
  'recording.ready',
  'chat.message',
  'reaction.burst',
  'show.scheduled',
  'show.starting',
  'station.followed',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Sent by the studio's test button, whatever the endpoint subscribes to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_LIMITS = {
  perStation: 10,
  urlMax: 2048,
  descriptionMax: 200,
  /** Receivers should refuse a signature whose timestamp is further than this from their clock. */
  toleranceSeconds: 300,
} as const;

const WebhookUrl = z
  .string()
  .trim()
  .max(WEBHOOK_LIMITS.urlMax)
  .url('must be an http(s) URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');

const Events = z
  .array(WebhookEventType)
  .min(1, 'choose at least one event')
  .transform((list) => [...new Set(list)]);

/** `POST /api/stations/webhooks`. */
export const CreateWebhookRequest = z.strictObject({
  stationId: StationId,
  url: WebhookUrl,
  events: Events,
  description: z.string().trim().max(WEBHOOK_LIMITS.descriptionMax).optional(),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const WebhookId = z.string().uuid({ message: 'must be a UUID' });

/** `POST /api/stations/webhooks/update`: only the fields given change. */
export const UpdateWebhookRequest = z.strictObject({
  webhookId: WebhookId,
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: z.string().trim().max(WEBHOOK_LIMITS.descriptionMax).optional(),
  enabled: z.boolean().optional(),
});
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

/** `POST /api/stations/webhooks/test` and `.../rotate-secret`. */
export const WebhookIdRequest = z.strictObject({ webhookId: WebhookId });
export type WebhookIdRequest = z.infer<typeof WebhookIdRequest>;

/** `POST /api/stations/webhooks/deliveries/retry`: send a delivery again now. */
export const RetryDeliveryRequest = z.strictObject({
  deliveryId: z.string().uuid({ message: 'must be a UUID' }),
});
export type RetryDeliveryRequest = z.infer<typeof RetryDeliveryRequest>;

export interface Webhook {
  id: string;
  stationId: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  /**
   * Why the server paused this endpoint (its address is one the server does not connect to), or
   * null; changing the URL or enabling it again clears it.
   */
  pausedReason: string | null;
  /** `whsec_…`: the signing secret (Standard Webhooks format). Only the station's owner sees it. */
  secret: string;
  createdAt: string;
  updatedAt: string;
  /** The outcome of the most recent delivery, if any. */
  lastDelivery: { status: WebhookDeliveryStatus; at: string; responseStatus: number | null } | null;
}

export interface WebhooksResponse {
  webhooks: Webhook[];
}

/**
 * `pending`: waiting for its next attempt; `succeeded`: a 2xx answer; `failed`: every retry
 * failed (or the endpoint was disabled or deleted meanwhile).
 */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttempt {
  at: string;
  /** The receiver's HTTP status, or null when no answer came (timeout, refused, DNS). */
  responseStatus: number | null;
  /** Why it failed without an answer, or a short note (e.g. a redirect was not followed). */
  error: string | null;
  durationMs: number;
  /** The first bytes of the receiver's answer. */
  responseBody: string | null;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  /** `webhook-id` header: the same on every retry, so receivers can drop duplicates. */
  eventId: string;
  eventType: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  /** The exact JSON body that was signed and sent. */
  payload: string;
  attempts: WebhookAttempt[];
}

export interface WebhookDeliveriesResponse {
  deliveries: WebhookDelivery[];
}

/** The station as webhook payloads describe it. */
export interface WebhookStation {
  id: string;
  name: string;
  slug: string;
  username: string;
  url: string;
}

/** The body of every webhook request (Standard Webhooks payload structure). */
export interface WebhookPayload<T = unknown> {
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  timestamp: string;
  data: T;
}
