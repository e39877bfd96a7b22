import { queryOptions } from '@tanstack/react-query';
import { api } from '../lib/api';

export const sessionQueryKey = ['session'] as const;

/** The signed-in user, or null. Sign-in changes invalidate this key, so every page sees them at once. */
export const sessionQueryOptions = () =>
  queryOptions({
    queryKey: sessionQueryKey,
    queryFn: () => api.auth.getSession(),
    meta: { errorToast: false },
  });
