import type { StationStats, StatsInterval } from '@radiobroadcaster/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../lib/api';

export interface StatsParams {
  from?: string;
  to?: string;
  interval?: StatsInterval;
  tz?: string;
  broadcastId?: string;
}

export function statsSearch(p: StatsParams): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const statsQueries = {
  station: (stationId: string, p: StatsParams) =>
    queryOptions({
      queryKey: ['stations', stationId, 'stats', p] as const,
      queryFn: () =>
        apiFetch<StationStats>(
          `/api/stations/${encodeURIComponent(stationId)}/stats${statsSearch(p)}`,
        ),
      // Figures move while listeners come and go: refresh like the station detail does, gently.
      refetchInterval: 30_000,
      staleTime: 10_000,
    }),
};
