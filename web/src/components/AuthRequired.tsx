import type { ErrorComponentProps } from '@tanstack/react-router';
import { Link, useLocation } from '@tanstack/react-router';
import { AuthRequiredError } from '../lib/auth';
import { ErrorScreen } from './ErrorScreen';

/** Error view of pages behind sign-in: 'Authentication required' with a way to sign in. */
export function AuthRequiredOrError(props: ErrorComponentProps) {
  const location = useLocation();
  if (!(props.error instanceof AuthRequiredError)) return <ErrorScreen {...props} />;
  return (
    <section className="screen" data-testid="auth-required" aria-labelledby="auth-required-title">
      <h1 id="auth-required-title">Authentication required</h1>
      <p className="muted">Please log in to perform this action.</p>
      <div className="actions">
        <Link to="/signin" search={{ redirect: location.href }} className="btn btn-primary">
          Sign in
        </Link>
        <Link to="/" className="btn">
          Home
        </Link>
      </div>
    </section>
  );
}
