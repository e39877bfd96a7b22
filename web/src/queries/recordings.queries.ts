import { queryOptions } from '@tanstack/react-query';
import { audienceApi } from '../lib/audience-api';

export const recordingKeys = {
  all: (stationId: string) => ['stations', stationId, 'recordings'] as const,
  list: (stationId: string) => ['stations', stationId, 'recordings', 'list'] as const,
  setting: (stationId: string) => ['stations', stationId, 'recordings', 'setting'] as const,
  byAddress: (username: string, slug: string, id: string) =>
    ['recordings', username.toLowerCase(), slug.toLowerCase(), id] as const,
};

export const recordingQueries = {
  list: (stationId: string) =>
    queryOptions({
      queryKey: recordingKeys.list(stationId),
      queryFn: () => audienceApi.recordings.list(stationId),
      // A recording under way grows and then turns ready (or failed): follow it meanwhile.
      refetchInterval: (q) => (q.state.data?.some((r) => r.status === 'recording') ? 5_000 : false),
    }),
  setting: (stationId: string) =>
    queryOptions({
      queryKey: recordingKeys.setting(stationId),
      queryFn: () => audienceApi.recordings.setting(stationId),
    }),
  byAddress: (username: string, slug: string, id: string) =>
    queryOptions({
      queryKey: recordingKeys.byAddress(username, slug, id),
      queryFn: () => audienceApi.recordings.byAddress(username, slug, id),
    }),
};
