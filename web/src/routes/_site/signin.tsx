import { LIMITS } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, createFileRoute, useNavigate, useRouter } from '@tanstack/react-router';
import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { z } from 'zod';
import { api } from '../../lib/api';
import { errorMessage } from '../../lib/api-error';
import { safeRedirect } from '../../lib/auth';
import { pageMeta, withSuffix } from '../../lib/seo';
import { sessionQueryKey, sessionQueryOptions } from '../../queries/session.queries';

const SignInSearch = z.object({
  mode: z.enum(['signin', 'signup']).optional().catch(undefined),
  redirect: z.string().optional().catch(undefined),
});

export const Route = createFileRoute('/_site/signin')({
  validateSearch: SignInSearch,
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Sign in'),
      description: 'Sign in or create a broadcaster account.',
    }),
  }),
  component: SignInPage,
});

type Mode = 'signin' | 'signup';

function SignInPage() {
  const { mode: initialMode, redirect } = Route.useSearch();
  const [mode, setMode] = useState<Mode>(initialMode ?? 'signin');
  const session = useQuery(sessionQueryOptions());
  const queryClient = useQueryClient();
  const router = useRouter();
  const navigate = useNavigate();
  const target = safeRedirect(redirect) ?? '/studio';

  const afterAuth = async () => {
    // Spec §4: sign-in changes invalidate the session.
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    await router.invalidate();
    await navigate({ href: target });
  };

  const signOut = useMutation({
    mutationFn: () => api.auth.signOut(),
    meta: { errorTitle: 'Sign-out failed' },
    onSuccess: async () => {
      queryClient.setQueryData(sessionQueryKey, null);
      await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      toast.success('Signed out');
    },
  });

  if (session.data) {
    return (
      <div className="container narrow page">
        <div className="card" data-testid="signed-in">
          <h1>You are signed in</h1>
          <p className="muted">
            Signed in as <strong>{session.data.user.name}</strong> (@{session.data.user.username}).
          </p>
          <div className="actions">
            <Link to="/studio" className="btn btn-primary">
              Open the studio
            </Link>
            <button
              type="button"
              className="btn"
              onClick={() => signOut.mutate()}
              disabled={signOut.isPending}
            >
              Sign out
            </button>
          </div>
        </div>
      </div>
    );
  }

  return (
    <div className="container narrow page">
      <div className="card">
        <h1 data-testid="page-title">{mode === 'signin' ? 'Sign in' : 'Create your account'}</h1>
        <p className="muted">
          {mode === 'signin'
            ? 'Welcome back. Sign in to run your stations.'
            : 'Broadcast live audio in minutes. Listeners never need an account.'}
        </p>
        <div className="tabs" role="tablist" aria-label="Sign in or sign up">
          <button
            type="button"
            role="tab"
            className="tab"
            id="tab-signin"
            aria-selected={mode === 'signin'}
            aria-controls="auth-panel"
            onClick={() => setMode('signin')}
          >
            Sign in
          </button>
          <button
            type="button"
            role="tab"
            className="tab"
            id="tab-signup"
            aria-selected={mode === 'signup'}
            aria-controls="auth-panel"
            onClick={() => setMode('signup')}
            data-testid="tab-signup"
          >
            Sign up
          </button>
        </div>
        <div id="auth-panel" role="tabpanel" aria-labelledby={`tab-${mode}`}>
          {mode === 'signin' ? (
            <SignInForm onDone={afterAuth} />
          ) : (
            <SignUpForm onDone={afterAuth} />
          )}
        </div>
      </div>
    </div>
  );
}

function Field(props: {
  label: string;
  name: string;
  type?: string;
  autoComplete?: string;
  hint?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        className="input"
        name={props.name}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        required
        minLength={props.minLength}
        maxLength={props.maxLength}
        pattern={props.pattern}
        aria-describedby={props.hint ? hintId : undefined}
        data-testid={`field-${props.name}`}
      />
      {props.hint ? (
        <span id={hintId} className="hint">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}

function formValues(e: FormEvent<HTMLFormElement>): Record<string, string> {
  e.preventDefault();
  const data = new FormData(e.currentTarget);
  return Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v)]));
}

function SignInForm({ onDone }: { onDone: () => Promise<void> }) {
  const signIn = useMutation({
    mutationFn: (v: Record<string, string>) =>
      api.auth.signIn({ email: v.email ?? '', password: v.password ?? '' }),
    meta: { errorToast: false },
    onSuccess: onDone,
  });
  return (
    <form onSubmit={(e) => signIn.mutate(formValues(e))} noValidate={false}>
      <Field label="Email" name="email" type="email" autoComplete="email" />
      <Field label="Password" name="password" type="password" autoComplete="current-password" />
      {signIn.isError ? (
        <p className="form-error" role="alert" data-testid="auth-error">
          {errorMessage(signIn.error)}
        </p>
      ) : null}
      <button
        type="submit"
        className="btn btn-primary"
        disabled={signIn.isPending}
        data-testid="signin-submit"
      >
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function SignUpForm({ onDone }: { onDone: () => Promise<void> }) {
  const signUp = useMutation({
    mutationFn: (v: Record<string, string>) =>
      api.auth.signUp({
        name: v.name ?? '',
        username: (v.username ?? '').trim().toLowerCase(),
        email: v.email ?? '',
        password: v.password ?? '',
      }),
    meta: { errorToast: false },
    onSuccess: onDone,
  });
  return (
    <form onSubmit={(e) => signUp.mutate(formValues(e))}>
      <Field label="Name" name="name" autoComplete="name" maxLength={LIMITS.nameMax} />
      <Field
        label="Username"
        name="username"
        autoComplete="username"
        minLength={LIMITS.usernameMin}
        maxLength={LIMITS.usernameMax}
        hint="Your public address: lowercase letters, digits, - and _."
      />
      <Field label="Email" name="email" type="email" autoComplete="email" />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={LIMITS.passwordMin}
        maxLength={LIMITS.passwordMax}
        hint={`At least ${LIMITS.passwordMin} characters.`}
      />
      {signUp.isError ? (
        <p className="form-error" role="alert" data-testid="auth-error">
          {errorMessage(signUp.error)}
        </p>
      ) : null}
      <button
        type="submit"
        className="btn btn-primary"
        disabled={signUp.isPending}
        data-testid="signup-submit"
      >
        {signUp.isPending ? 'Creating account…' : 'Create account'}
      </button>
    </form>
  );
}
