import { LIMITS, PRODUCT_NAME, SignInRequest, SignUpRequest } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, createFileRoute, useNavigate, useRouter } from '@tanstack/react-router';
import { z } from 'zod';
import { api } from '../../lib/api';
import {
  EmailField,
  Field,
  Form,
  FormError,
  PasswordField,
  SubmitButton,
} from '../../components/form';
import { MutationButton } from '../../components/MutationButton';
import { safeRedirect, useSignOut } from '../../lib/auth';
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
  const { mode = 'signin', redirect } = Route.useSearch();
  const session = useQuery(sessionQueryOptions());
  const queryClient = useQueryClient();
  const router = useRouter();
  const navigate = useNavigate();
  // The tab is in the address, so the nav's Sign up and Sign in links switch it from this page too.
  const setMode = (next: Mode) =>
    void navigate({ to: '/signin', search: (s) => ({ ...s, mode: next }), replace: true });
  const target = safeRedirect(redirect) ?? '/studio';

  const afterAuth = async () => {
    // Signing in or up changes who is signed in: everything cached about the session is stale.
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    await router.invalidate();
    await navigate({ href: target });
  };
  // A new account first hears that a confirmation mail is on its way, then goes on.
  const afterSignUp = async () => {
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    await router.invalidate();
    await navigate({ to: '/verify-email', search: { sent: true, next: target } });
  };

  const signOut = useSignOut();

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
            <MutationButton mutation={signOut}>Sign out</MutationButton>
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
            <>
              <SignInForm onDone={afterAuth} />
              <p className="form-aside small" data-testid="signup-offer">
                New to {PRODUCT_NAME}?{' '}
                <Link to="/signin" search={{ redirect, mode: 'signup' }} replace>
                  Create an account
                </Link>
              </p>
            </>
          ) : (
            <SignUpForm onDone={afterSignUp} />
          )}
        </div>
      </div>
    </div>
  );
}

function SignInForm({ onDone }: { onDone: () => Promise<void> }) {
  const signIn = useMutation({
    mutationFn: (req: SignInRequest) => api.auth.signIn(req),
    meta: { errorToast: false },
    onSuccess: onDone,
  });
  return (
    <Form schema={SignInRequest} mutation={signIn} aria-label="Sign in">
      <EmailField />
      <PasswordField />
      <FormError />
      <SubmitButton pendingLabel="Signing in…" data-testid="signin-submit">
        Sign in
      </SubmitButton>
      <p className="muted small form-aside">
        <Link to="/forgot-password" data-testid="forgot-password-link">
          Forgot your password?
        </Link>
      </p>
    </Form>
  );
}

function SignUpForm({ onDone }: { onDone: () => Promise<void> }) {
  const signUp = useMutation({
    mutationFn: (req: SignUpRequest) => api.auth.signUp(req),
    meta: { errorToast: false },
    onSuccess: onDone,
  });
  return (
    <Form schema={SignUpRequest} mutation={signUp} aria-label="Create your account">
      <Field label="Name" name="name" autoComplete="name" maxLength={LIMITS.nameMax} required />
      <Field
        label="Username"
        name="username"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        maxLength={LIMITS.usernameMax}
        hint="Your public address: lowercase letters, digits, - and _."
        required
      />
      <EmailField />
      <PasswordField choosing hint={`At least ${LIMITS.passwordMin} characters.`} />
      <FormError />
      <SubmitButton pendingLabel="Creating account…" data-testid="signup-submit">
        Create account
      </SubmitButton>
    </Form>
  );
}
