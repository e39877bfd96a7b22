import type { QueryClient } from '@tanstack/react-query';
import { createRouter } from '@tanstack/react-router';
import { ErrorScreen } from './components/ErrorScreen';
import { DefaultNotFound } from './components/NotFound';
import { Pending } from './components/Pending';
import { routeTree } from './routeTree.gen';

export interface RouterContext {
  queryClient: QueryClient;
}

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    // Loaders call ensureQueryData; TanStack Query decides what is fresh.
    defaultPreloadStaleTime: 0,
    defaultPendingMs: 500,
    defaultPendingMinMs: 200,
    defaultPendingComponent: Pending,
    defaultNotFoundComponent: DefaultNotFound,
    defaultErrorComponent: ErrorScreen,
    scrollRestoration: true,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
