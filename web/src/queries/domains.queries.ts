import { queryOptions } from '@tanstack/react-query';
import { api } from '../lib/api';

export const domainsQueryKey = ['me', 'allowed-domains'] as const;

export const domainsQueryOptions = () =>
  queryOptions({
    queryKey: domainsQueryKey,
    queryFn: async () => (await api.domains.list()).domains,
  });
