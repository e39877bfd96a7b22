import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiFetch } from './api';

export interface SiteInfo {
  name: string;
  tagline: string;
  /** Configured on the server (SUPPORT_EMAIL). */
  supportEmail: string;
  publicUrl: string;
}

export const siteInfoQuery = queryOptions({
  queryKey: ['site'],
  queryFn: () => apiFetch<SiteInfo>('/api/site'),
  staleTime: Infinity,
});

/** The support address from the server's configuration; null until it has loaded. */
export function useSupportEmail(): string | null {
  return useQuery(siteInfoQuery).data?.supportEmail ?? null;
}
