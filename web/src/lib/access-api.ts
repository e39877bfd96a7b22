import type {
  AddListenerRequest,
  CreateInviteRequest,
  Invite,
  ListedListener,
  StationAccess,
  StationPasswordRequest,
  StationVisibility,
} from '@radiobroadcaster/contracts';
import { apiFetch } from './api';

const seg = encodeURIComponent;

/** A private station's owner: visibility, invite links, password, listener list. */
export const accessApi = {
  overview: (stationId: string) =>
    apiFetch<StationAccess>(`/api/stations/${seg(stationId)}/access`),
  setVisibility: (stationId: string, visibility: StationVisibility) =>
    apiFetch<unknown>('/api/stations/update', 'POST', { stationId, visibility }),
  invites: (stationId: string) => apiFetch<Invite[]>(`/api/stations/${seg(stationId)}/invites`),
  createInvite: (data: CreateInviteRequest) =>
    apiFetch<Invite>('/api/stations/invites', 'POST', data),
  revokeInvite: (id: string) => apiFetch<void>(`/api/stations/invites/${seg(id)}`, 'DELETE'),
  revokeAll: (stationId: string) =>
    apiFetch<{ revoked: number }>('/api/stations/invites/revoke-all', 'POST', { stationId }),
  setPassword: (data: StationPasswordRequest) =>
    apiFetch<{ hasPassword: boolean }>('/api/stations/password', 'POST', data),
  addListener: (data: AddListenerRequest) =>
    apiFetch<ListedListener>('/api/stations/listeners', 'POST', data),
  removeListener: (id: string) => apiFetch<void>(`/api/stations/listeners/${seg(id)}`, 'DELETE'),
};

export const accessKeys = {
  overview: (stationId: string) => ['stations', stationId, 'access'] as const,
  invites: (stationId: string) => ['stations', stationId, 'invites'] as const,
};
