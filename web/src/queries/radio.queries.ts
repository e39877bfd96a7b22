import { queryOptions } from '@tanstack/react-query';
import { radioApi } from '../lib/radio-api';

export const radioKeys = {
  settings: (stationId: string) => ['stations', stationId, 'broadcast-settings'] as const,
  relays: (stationId: string) => ['stations', stationId, 'relays'] as const,
};

export const radioQueries = {
  settings: (stationId: string) =>
    queryOptions({
      queryKey: radioKeys.settings(stationId),
      queryFn: () => radioApi.settings(stationId),
      staleTime: 60_000,
    }),
  /** Relay states change on their own while live (connecting, retrying): follow them. */
  relays: (stationId: string, live: boolean) =>
    queryOptions({
      queryKey: radioKeys.relays(stationId),
      queryFn: async () => (await radioApi.relays.list(stationId)).relays,
      refetchInterval: live ? 2_000 : 10_000,
    }),
};
