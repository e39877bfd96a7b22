import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router';
import { useEffect, useId, useState } from 'react';
import { errorMessage } from '../lib/api-error';

/**
 * The error screen: the error details, 'Try Again' (re-runs the route's loading), then 'Home' on
 * the root route or 'Go Back' anywhere else.
 */
export function ErrorScreen({ error, reset, isRoot }: ErrorComponentProps & { isRoot?: boolean }) {
  const router = useRouter();
  const queryReset = useQueryErrorResetBoundary();
  const [showDetails, setShowDetails] = useState(false);
  const detailsId = useId();

  useEffect(() => {
    queryReset.reset();
  }, [queryReset]);

  const tryAgain = () => {
    reset();
    void router.invalidate();
  };

  return (
    <section className="screen" role="alert" data-testid="error-screen">
      <h1>Something went wrong!</h1>
      <p className="error-message" data-testid="error-message">
        {errorMessage(error)}
      </p>
      {error instanceof Error && error.message !== errorMessage(error) ? (
        <>
          <button
            type="button"
            className="btn btn-link"
            aria-expanded={showDetails}
            aria-controls={detailsId}
            onClick={() => setShowDetails((v) => !v)}
          >
            {showDetails ? 'Hide Error' : 'Show Error'}
          </button>
          <pre id={detailsId} className="error-details" hidden={!showDetails} tabIndex={0}>
            {error.message}
          </pre>
        </>
      ) : null}
      <div className="actions">
        <button type="button" className="btn btn-primary" onClick={tryAgain}>
          Try Again
        </button>
        {isRoot ? (
          <Link to="/" className="btn">
            Home
          </Link>
        ) : (
          <button type="button" className="btn" onClick={() => router.history.back()}>
            Go Back
          </button>
        )}
      </div>
    </section>
  );
}

export function RootErrorScreen(props: ErrorComponentProps) {
  return <ErrorScreen {...props} isRoot />;
}
