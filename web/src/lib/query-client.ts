import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiStatus, isClientError } from './api-error';
import { showErrorToast } from './toasts';

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: {
      /** Toast title for a failure; a failure with no data yet is shown by the page instead. */
      errorTitle?: string;
      /** false: never toast for this query. */
      errorToast?: boolean;
      /** The page itself says when this answers 404 (a deleted station): no toast for that. */
      notFoundInPage?: boolean;
    };
    mutationMeta: {
      /** Toast title used when the error tag has no title of its own. */
      errorTitle?: string;
      /** false: the caller shows the failure itself (e.g. inline form messages). */
      errorToast?: boolean;
      /** Error tags the caller shows itself (no toast for those). */
      quietTags?: readonly string[];
    };
  }
}

/** Queries retry up to 3 times, never a 4xx answer (by its HTTP status, not its text). */
export function retryQuery(failureCount: number, error: Error): boolean {
  return failureCount < 3 && !isClientError(error);
}

/** Mutations retry once, never a 4xx answer: a refused sign-in must reach the server only once. */
export function retryMutation(failureCount: number, error: Error): boolean {
  return failureCount < 1 && !isClientError(error);
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // Pages show a failed first load themselves; toasts are for background refreshes.
        if (query.meta?.errorToast === false || query.state.data === undefined) return;
        if (query.meta?.notFoundInPage && isApiStatus(error, 404)) return;
        showErrorToast(error, query.meta?.errorTitle);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _vars, _ctx, mutation) => {
        if (mutation.meta?.errorToast === false) return;
        const tag = (error as { tag?: string }).tag;
        if (tag && mutation.meta?.quietTags?.includes(tag)) return;
        showErrorToast(error, mutation.meta?.errorTitle);
      },
    }),
    defaultOptions: {
      queries: { staleTime: 60_000, retry: retryQuery },
      mutations: { retry: retryMutation },
    },
  });
}
