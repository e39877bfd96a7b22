import { ChangeEmailRequest, ChangePasswordRequest } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { toast } from 'sonner';
import { AuthRequiredOrError } from '../../../components/AuthRequired';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { PresenceVisibilityCard } from '../../../components/together/PresenceVisibilityCard';
import {
  EmailField,
  Form,
  FormError,
  InputField,
  NewPasswordField,
  PasswordField,
  SubmitButton,
} from '../../../components/form';
import { api } from '../../../lib/api';
import { errorMessage } from '../../../lib/api-error';
import { requireSession } from '../../../lib/auth';
import { pageMeta, withSuffix } from '../../../lib/seo';
import { sessionQueryKey, sessionQueryOptions } from '../../../queries/session.queries';
import { ResendVerification } from '../verify-email';

export const Route = createFileRoute('/_site/settings/account')({
  beforeLoad: async ({ context: { queryClient } }) => ({
    session: await requireSession(queryClient),
  }),
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Account'),
      description: 'Your email address, password and account.',
    }),
  }),
  errorComponent: AuthRequiredOrError,
  component: AccountPage,
});

function AccountPage() {
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  if (!session) return null;
  const { user } = session;
  return (
    <div className="container narrow page" data-testid="account-page">
      <header className="page-header">
        <p className="eyebrow">Settings</p>
        <h1>Account</h1>
        <p className="muted">
          Signed in as <strong>{user.name}</strong> (@{user.username}).
        </p>
      </header>
      <EmailCard email={user.email} verified={user.emailVerified} />
      <PasswordCard />
      <PresenceVisibilityCard />
      <DeleteCard username={user.username} />
    </div>
  );
}

function EmailCard({ email, verified }: { email: string; verified: boolean }) {
  const change = useMutation({
    mutationFn: (req: ChangeEmailRequest) => api.auth.changeEmail({ newEmail: req.newEmail }),
    meta: { errorToast: false },
  });
  return (
    <section className="card account-section" aria-labelledby="email-title">
      <h2 id="email-title">Email address</h2>
      <p>
        <strong data-testid="account-email">{email}</strong>{' '}
        {verified ? (
          <span className="badge" data-testid="email-status">
            Confirmed
          </span>
        ) : (
          <span className="badge badge-wait" data-testid="email-status">
            Not confirmed yet
          </span>
        )}
      </p>
      {verified ? null : (
        <div className="notice notice-warn">
          <p>
            Confirm your address with the link we mailed you, so you can always recover the account.
          </p>
          <ResendVerification />
        </div>
      )}
      <Form
        schema={ChangeEmailRequest}
        mutation={change}
        resetOnSuccess
        aria-labelledby="email-title"
      >
        <EmailField
          label="New email address"
          name="newEmail"
          hint="We mail a link to the new address; your account switches to it once you open the link."
        />
        <FormError />
        <SubmitButton pendingLabel="Sending…" data-testid="change-email-submit">
          Change email
        </SubmitButton>
        <p role="status" className="muted" data-testid="change-email-status">
          {change.isSuccess
            ? `Check ${change.variables.newEmail}: open the link there to switch your account to it.`
            : ''}
        </p>
      </Form>
    </section>
  );
}

function PasswordCard() {
  const change = useMutation({
    mutationFn: (req: ChangePasswordRequest) =>
      api.auth.changePassword({
        currentPassword: req.currentPassword,
        newPassword: req.newPassword,
        revokeOtherSessions: true,
      }),
    meta: { errorToast: false },
    onSuccess: () =>
      toast.success('Password changed', { description: 'Your other sessions were signed out.' }),
  });
  return (
    <section className="card account-section" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <Form
        schema={ChangePasswordRequest}
        mutation={change}
        resetOnSuccess
        aria-labelledby="password-title"
      >
        <PasswordField label="Current password" name="currentPassword" />
        <NewPasswordField hint="Other devices are signed out when it changes." />
        <FormError />
        <SubmitButton pendingLabel="Saving…" data-testid="change-password-submit">
          Change password
        </SubmitButton>
        <p role="status" className="muted" data-testid="change-password-status">
          {change.isSuccess ? 'Your password is changed.' : ''}
        </p>
      </Form>
    </section>
  );
}

function DeleteCard({ username }: { username: string }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const opener = useRef<HTMLButtonElement>(null);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => api.auth.deleteUser(password),
    meta: { errorToast: false },
    onSuccess: async () => {
      setOpen(false);
      queryClient.setQueryData(sessionQueryKey, null);
      toast.success('Your account is deleted');
      await navigate({ to: '/' });
    },
  });
  return (
    <section className="card account-section danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete account</h2>
      <p className="muted">
        Deletes @{username} with every station, allowed domain and session. This cannot be undone.
      </p>
      <button
        ref={opener}
        type="button"
        className="btn btn-danger"
        onClick={() => {
          remove.reset();
          setPassword('');
          setOpen(true);
        }}
        data-testid="delete-account"
      >
        Delete account…
      </button>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete for good"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        confirmDisabled={password.length === 0}
        onConfirm={() => remove.mutate()}
        onCancel={() => setOpen(false)}
        returnFocus={() => opener.current}
        data-testid="delete-dialog"
      >
        <p>
          Your stations go off the air and their pages disappear. Type your password to confirm.
        </p>
        <InputField
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          problem={remove.isError ? errorMessage(remove.error) : undefined}
          alert
          data-testid="delete-password"
        />
      </ConfirmDialog>
    </section>
  );
}
