import type {
  CreateWebhookRequest,
  Recording,
  RecordingSetting,
  RecordingSettingRequest,
  UpdateRecordingRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookDeliveriesResponse,
  WebhookDelivery,
  WebhooksResponse,
} from '@radiobroadcaster/contracts';
import { apiFetch } from './api';
import { grantAt, grantFor, withGrant } from './listen-grant';

const seg = encodeURIComponent;

/** The owner's station tools: webhooks (and, beside them, stats and recordings). */
export const audienceApi = {
  webhooks: {
    list: (stationId: string) =>
      apiFetch<WebhooksResponse>(`/api/stations/${seg(stationId)}/webhooks`),
    create: (data: CreateWebhookRequest) =>
      apiFetch<Webhook>('/api/stations/webhooks', 'POST', data),
    update: (data: UpdateWebhookRequest) =>
      apiFetch<Webhook>('/api/stations/webhooks/update', 'POST', data),
    rotateSecret: (webhookId: string) =>
      apiFetch<Webhook>('/api/stations/webhooks/rotate-secret', 'POST', { webhookId }),
    test: (webhookId: string) =>
      apiFetch<WebhookDelivery>('/api/stations/webhooks/test', 'POST', { webhookId }),
    remove: (webhookId: string) =>
      apiFetch<void>(`/api/stations/webhooks/${seg(webhookId)}`, 'DELETE'),
    deliveries: (webhookId: string) =>
      apiFetch<WebhookDeliveriesResponse>(`/api/stations/webhooks/${seg(webhookId)}/deliveries`),
    retry: (deliveryId: string) =>
      apiFetch<WebhookDelivery>('/api/stations/webhooks/deliveries/retry', 'POST', { deliveryId }),
  },
  recordings: {
    setting: (stationId: string) =>
      apiFetch<RecordingSetting>(`/api/stations/${seg(stationId)}/recording`),
    saveSetting: (data: RecordingSettingRequest) =>
      apiFetch<RecordingSetting>('/api/stations/recording', 'POST', data),
    /** The owner gets every recording; anyone else the published, finished ones. */
    list: (stationId: string) =>
      apiFetch<Recording[]>(
        withGrant(`/api/stations/${seg(stationId)}/recordings`, grantFor(stationId)),
      ),
    byAddress: (username: string, slug: string, recordingId: string) =>
      apiFetch<Recording>(
        withGrant(
          `/api/users/${seg(username)}/stations/${seg(slug)}/recordings/${seg(recordingId)}`,
          grantAt(username, slug),
        ),
      ),
    update: (data: UpdateRecordingRequest) =>
      apiFetch<Recording>('/api/stations/recordings/update', 'POST', data),
    remove: (recordingId: string) =>
      apiFetch<void>(`/api/stations/recordings/${seg(recordingId)}`, 'DELETE'),
  },
};

/**
 * The recording's audio on this site (HTTP Range for seeking); `download` asks to save it; `grant`:
 * a private station's listening grant.
 */
export function recordingAudioPath(
  recordingId: string,
  download = false,
  grant: string | null = null,
): string {
  return withGrant(
    `/api/recordings/${seg(recordingId)}/audio.ogg${download ? '?download=1' : ''}`,
    grant,
  );
}
