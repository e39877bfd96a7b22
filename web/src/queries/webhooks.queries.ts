import { queryOptions } from '@tanstack/react-query';
import { audienceApi } from '../lib/audience-api';

export const webhookKeys = {
  list: (stationId: string) => ['stations', stationId, 'webhooks'] as const,
  deliveries: (webhookId: string) => ['webhooks', webhookId, 'deliveries'] as const,
};

export const webhookQueries = {
  list: (stationId: string) =>
    queryOptions({
      queryKey: webhookKeys.list(stationId),
      queryFn: async () => (await audienceApi.webhooks.list(stationId)).webhooks,
      staleTime: 5_000,
    }),
  deliveries: (webhookId: string) =>
    queryOptions({
      queryKey: webhookKeys.deliveries(webhookId),
      queryFn: async () => (await audienceApi.webhooks.deliveries(webhookId)).deliveries,
      // Pending retries change on their own: follow them while any is waiting.
      refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'pending') ? 3_000 : false),
    }),
};
