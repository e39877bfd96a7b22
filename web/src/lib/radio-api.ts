import type {
  BroadcastSettings,
  CreateRelayRequest,
  Relay,
  RelaysResponse,
  RotateStreamKeyResponse,
  UpdateBroadcastSettingsRequest,
  UpdateRelayRequest,
} from '@radiobroadcaster/contracts';
import { apiFetch } from './api';

const seg = encodeURIComponent;

/** Broadcasting from other software (stream key, Icecast settings) and outbound relays. */
export const radioApi = {
  settings: (stationId: string) =>
    apiFetch<BroadcastSettings>(`/api/stations/${seg(stationId)}/broadcast-settings`),
  updateSettings: (data: UpdateBroadcastSettingsRequest) =>
    apiFetch<BroadcastSettings>('/api/stations/broadcast-settings', 'POST', data),
  rotateKey: (stationId: string) =>
    apiFetch<RotateStreamKeyResponse>('/api/stations/stream-key/rotate', 'POST', { stationId }),
  relays: {
    list: (stationId: string) => apiFetch<RelaysResponse>(`/api/stations/${seg(stationId)}/relays`),
    create: (data: CreateRelayRequest) => apiFetch<Relay>('/api/stations/relays', 'POST', data),
    update: (data: UpdateRelayRequest) =>
      apiFetch<Relay>('/api/stations/relays/update', 'POST', data),
    remove: (relayId: string) => apiFetch<void>(`/api/stations/relays/${seg(relayId)}`, 'DELETE'),
  },
};
