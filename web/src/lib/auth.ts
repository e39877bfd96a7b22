import type { SessionResponse } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { redirect } from '@tanstack/react-router';
import { toast } from 'sonner';
import { sessionQueryKey, sessionQueryOptions } from '../queries/session.queries';
import { api } from './api';

/** Thrown by `beforeLoad` of pages that need a session (they show 'Authentication required'). */
export class AuthRequiredError extends Error {
  override readonly name = 'AuthRequiredError';
  constructor() {
    super('Authentication required');
  }
}

/** The current session; throws {@link AuthRequiredError} when signed out. */
export async function requireSession(queryClient: QueryClient): Promise<SessionResponse> {
  const session = await queryClient.ensureQueryData(sessionQueryOptions());
  if (!session) throw new AuthRequiredError();
  return session;
}

/**
 * Pages a visitor may arrive at without a session (the studio): signed out, they go to Sign in
 * (which links to creating an account) and come back after.
 */
export async function requireSessionOrSignIn(
  queryClient: QueryClient,
  returnTo: string,
): Promise<SessionResponse> {
  const session = await queryClient.ensureQueryData(sessionQueryOptions());
  if (!session) throw redirect({ to: '/signin', search: { redirect: returnTo } });
  return session;
}

/** Only same-site paths are followed after sign-in. */
export function safeRedirect(path: string | undefined): string | undefined {
  return path && path.startsWith('/') && !path.startsWith('//') ? path : undefined;
}

/** Signing out: nothing cached about the account outlives it; `then` runs after (a navigation). */
export function useSignOut(then?: () => Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.auth.signOut(),
    meta: { errorTitle: 'Sign-out failed' },
    onSuccess: async () => {
      queryClient.setQueryData(sessionQueryKey, null);
      await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      queryClient.removeQueries({ queryKey: ['me'] });
      toast.success('Signed out');
      await then?.();
    },
  });
}
