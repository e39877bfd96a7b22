import { LIMITS, ResetPasswordRequest } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { z } from 'zod';
import { AccountCardPage, Outcome } from '../../components/AccountCard';
import { Form, FormError, NewPasswordField, SubmitButton } from '../../components/form';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/api-error';
import { pageMeta, withSuffix } from '../../lib/seo';
import { sessionQueryKey } from '../../queries/session.queries';

const ResetSearch = z.object({ token: z.string().min(1).max(256).optional().catch(undefined) });

export const Route = createFileRoute('/_site/reset-password')({
  validateSearch: ResetSearch,
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Choose a new password'),
      description: 'Choose a new password.',
    }),
  }),
  component: ResetPasswordPage,
});

function ResetPasswordPage() {
  const { token } = Route.useSearch();
  const queryClient = useQueryClient();
  const reset = useMutation({
    mutationFn: (req: ResetPasswordRequest) => api.auth.resetPassword(req),
    meta: { errorToast: false },
    // Every session ended, this browser's too.
    onSuccess: () => queryClient.setQueryData(sessionQueryKey, null),
  });
  // A used or old link is a problem of the link, not of the password typed.
  const linkDead =
    reset.error instanceof ApiError && reset.error.fields.some((f) => f.path === 'token');

  return (
    <AccountCardPage>
      {reset.isSuccess ? (
        <Outcome title="Your password is changed" focus data-testid="password-reset">
          <p>For your safety you are signed out everywhere. Sign in with the new password.</p>
          <div className="actions">
            <Link to="/signin" className="btn btn-primary">
              Sign in
            </Link>
          </div>
        </Outcome>
      ) : !token || linkDead ? (
        <Outcome title="This link no longer works" data-testid="reset-link-expired">
          <p>Reset links work once, for 1 hour. Ask for a new one.</p>
          <div className="actions">
            <Link to="/forgot-password" className="btn btn-primary">
              Mail me a new link
            </Link>
          </div>
        </Outcome>
      ) : (
        <>
          <h1>Choose a new password</h1>
          <Form
            schema={ResetPasswordRequest}
            toRequest={(v) => ({ token, newPassword: v.newPassword ?? '' })}
            mutation={reset}
            aria-label="Choose a new password"
          >
            <NewPasswordField
              hint={`At least ${LIMITS.passwordMin} characters; a few uncommon words work well.`}
            />
            <FormError />
            <SubmitButton pendingLabel="Saving…" data-testid="reset-submit">
              Save the new password
            </SubmitButton>
          </Form>
        </>
      )}
    </AccountCardPage>
  );
}
