import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { z } from 'zod';
import { AccountCardPage, Outcome } from '../../components/AccountCard';
import { api } from '../../lib/api';
import { errorMessage, isApiStatus } from '../../lib/api-error';
import { safeRedirect } from '../../lib/auth';
import { pageMeta, withSuffix } from '../../lib/seo';
import { sessionQueryKey, sessionQueryOptions } from '../../queries/session.queries';
import { useQueryClient } from '@tanstack/react-query';

const VerifySearch = z.object({
  token: z.string().min(1).max(256).optional().catch(undefined),
  sent: z.boolean().optional().catch(undefined),
  next: z.string().optional().catch(undefined),
});

export const Route = createFileRoute('/_site/verify-email')({
  validateSearch: VerifySearch,
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Confirm your email'),
      description: 'Confirm the email address of your Radio Broadcaster account.',
    }),
  }),
  component: VerifyEmailPage,
});

function VerifyEmailPage() {
  const { token } = Route.useSearch();
  return <AccountCardPage>{token ? <OpenedLink token={token} /> : <CheckInbox />}</AccountCardPage>;
}

/** After sign-up (or from settings): where the mail went, a resend button, and the way on. */
function CheckInbox() {
  const { next } = Route.useSearch();
  const session = useQuery(sessionQueryOptions());
  const target = safeRedirect(next) ?? '/studio';
  const user = session.data?.user;
  return (
    <Outcome title="Check your inbox" data-testid="check-inbox">
      {user ? (
        <p>
          We sent a link to <strong data-testid="inbox-email">{user.email}</strong>. Open it to
          confirm your address; the link works for 24 hours.
        </p>
      ) : (
        <p>Open the link we mailed you to confirm your address.</p>
      )}
      <p className="muted">
        You can go live right away: confirming keeps your account recoverable and lets you change
        the address later.
      </p>
      {user && !user.emailVerified ? <ResendVerification /> : null}
      <div className="actions">
        <Link to={target} className="btn btn-primary" data-testid="continue">
          Continue to the studio
        </Link>
      </div>
    </Outcome>
  );
}

/** "Send it again", limited by the server; says what happened in a live region. */
export function ResendVerification() {
  const resend = useMutation({
    mutationFn: () => api.auth.sendVerificationEmail(),
    meta: { errorToast: false },
  });
  const status = resend.isSuccess
    ? 'We sent a new link. Check your inbox (and the spam folder).'
    : resend.isError
      ? isApiStatus(resend.error, 429)
        ? `You asked for several links already. ${errorMessage(resend.error)}.`
        : errorMessage(resend.error)
      : '';
  return (
    <div className="resend">
      <button
        type="button"
        className="btn"
        onClick={() => resend.mutate()}
        aria-disabled={resend.isPending || undefined}
        data-testid="resend-verification"
      >
        {resend.isPending ? 'Sending…' : 'Send the link again'}
      </button>
      <p
        role="status"
        className={resend.isError ? 'form-error' : 'muted'}
        data-testid="resend-status"
      >
        {status}
      </p>
    </div>
  );
}

/** The mailed link: confirms once, then says so; a used or old link says that instead. */
function OpenedLink({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => api.auth.verifyEmail(token),
    meta: { errorToast: false },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQueryKey }),
  });
  const started = useRef(false);
  useEffect(() => {
    // Once per page view, even under React's double effects in development.
    if (started.current) return;
    started.current = true;
    verify.mutate();
  }, [verify]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [verify.status]);
  const session = useQuery(sessionQueryOptions());

  if (verify.isSuccess) {
    const changed = verify.data.kind === 'change-email';
    return (
      <Outcome
        title={changed ? 'Your new address is confirmed' : 'Your email is confirmed'}
        focus
        data-testid="email-verified"
      >
        <p>
          {changed ? 'Your account now uses ' : 'Thank you: '}
          <strong>{verify.data.email}</strong>
          {changed ? '.' : ' is confirmed.'}
        </p>
        <div className="actions">
          <Link to={session.data ? '/studio' : '/signin'} className="btn btn-primary">
            {session.data ? 'Open the studio' : 'Sign in'}
          </Link>
        </div>
      </Outcome>
    );
  }
  if (verify.isError) {
    return (
      <Outcome title="This link no longer works" focus data-testid="link-expired">
        <p>
          {isApiStatus(verify.error, 400)
            ? 'It was used already or is more than 24 hours old.'
            : errorMessage(verify.error)}
        </p>
        {session.data && !session.data.user.emailVerified ? (
          <>
            <p className="muted">Ask for a new one:</p>
            <ResendVerification />
          </>
        ) : session.data ? (
          <p className="muted">Your address is confirmed already.</p>
        ) : (
          <div className="actions">
            <Link to="/signin" className="btn btn-primary">
              Sign in to get a new link
            </Link>
          </div>
        )}
      </Outcome>
    );
  }
  return (
    <section aria-busy="true">
      <h1 ref={heading} tabIndex={-1}>
        Confirming your email…
      </h1>
      <p role="status" className="muted">
        One moment.
      </p>
    </section>
  );
}
