import { queryOptions } from '@tanstack/react-query';
import { api } from '../lib/api';

export const sessionQueryKey = ['session'] as const;

/** The signed-in user, or null. Sign-in changes invalidate this key (spec §4). */
export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: sessionQueryKey,
    queryFn: () => api.auth.getSession(),
    meta: { errorToast: false },
  });
