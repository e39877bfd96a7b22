import { RequestPasswordResetRequest } from '@radiobroadcaster/contracts';
import { useMutation } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { AccountCardPage, Outcome } from '../../components/AccountCard';
import { EmailField, Form, FormError, SubmitButton } from '../../components/form';
import { api } from '../../lib/api';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/forgot-password')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Reset your password'),
      description: 'Get a link to choose a new password.',
    }),
  }),
  component: ForgotPasswordPage,
});

function ForgotPasswordPage() {
  const request = useMutation({
    mutationFn: (req: RequestPasswordResetRequest) => api.auth.requestPasswordReset(req),
    meta: { errorToast: false },
  });
  return (
    <AccountCardPage>
      {request.isSuccess ? (
        <Outcome title="Check your inbox" focus data-testid="reset-requested">
          <p>
            If an account uses <strong>{request.variables.email}</strong>, a link to choose a new
            password is on its way. It works once, for 1 hour.
          </p>
          <div className="actions">
            <Link to="/signin" className="btn">
              Back to sign in
            </Link>
          </div>
        </Outcome>
      ) : (
        <>
          <h1>Reset your password</h1>
          <p className="muted">
            Enter the email address of your account and we will mail you a link to choose a new
            password.
          </p>
          <Form
            schema={RequestPasswordResetRequest}
            mutation={request}
            aria-label="Reset your password"
          >
            <EmailField />
            <FormError />
            <SubmitButton pendingLabel="Sending…" data-testid="reset-request-submit">
              Mail me a link
            </SubmitButton>
          </Form>
        </>
      )}
    </AccountCardPage>
  );
}
