import type {
  FollowerCounts,
  FollowSettings,
  FollowState,
  GuestFollowResponse,
  Show,
  ShowsResponse,
  UpdateFollowRequest,
} from '@radiobroadcaster/contracts';
import { apiFetch } from '../../lib/api';

const seg = encodeURIComponent;

/** The calls of following and the schedule editor. */
export const followApi = {
  state: (stationId: string) => apiFetch<FollowState>(`/api/stations/follow/${seg(stationId)}`),
  follow: (stationId: string) =>
    apiFetch<FollowState>('/api/stations/follow', 'POST', { stationId }),
  unfollow: (stationId: string) =>
    apiFetch<void>(`/api/stations/follow/${seg(stationId)}`, 'DELETE'),
  settings: (req: UpdateFollowRequest) =>
    apiFetch<FollowState>('/api/stations/follow/settings', 'POST', req),
  guest: (stationId: string, email: string) =>
    apiFetch<GuestFollowResponse>('/api/stations/follow/email', 'POST', { stationId, email }),
  counts: (stationId: string) =>
    apiFetch<FollowerCounts>(`/api/stations/${seg(stationId)}/followers`),
  shows: (stationId: string, from?: string, to?: string) =>
    apiFetch<ShowsResponse>(
      `/api/stations/${seg(stationId)}/shows${from && to ? `?from=${seg(from)}&to=${seg(to)}` : ''}`,
    ),
  createShow: (body: object) => apiFetch<Show>('/api/stations/shows', 'POST', body),
  updateShow: (body: object) => apiFetch<Show>('/api/stations/shows/update', 'POST', body),
  removeShow: (showId: string) => apiFetch<void>(`/api/stations/shows/${seg(showId)}`, 'DELETE'),
};

export const followKeys = {
  state: (stationId: string) => ['stations', stationId, 'follow'] as const,
  counts: (stationId: string) => ['stations', stationId, 'followers'] as const,
  shows: (stationId: string) => ['stations', stationId, 'shows'] as const,
};

export const SETTING_LABELS: [keyof FollowSettings, string][] = [
  ['onLive', 'When it goes live'],
  ['beforeShow', '30 minutes before a scheduled show'],
  ['atShowStart', 'When a scheduled show starts'],
  ['email', 'By e-mail'],
  ['push', 'By browser notification'],
];
