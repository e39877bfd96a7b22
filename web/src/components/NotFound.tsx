import { Link, useRouter } from '@tanstack/react-router';
import type { ReactNode } from 'react';

export const NOT_FOUND_MESSAGE = 'The page you are looking for does not exist.';

/** The not-found screen: the message, 'Go back' (history) and 'Start Over' (to '/'). */
export function NotFound({
  title = 'Not Found',
  message,
  children,
}: {
  title?: string;
  message?: string;
  children?: ReactNode;
}) {
  const router = useRouter();
  return (
    <section className="screen" data-testid="not-found" aria-labelledby="not-found-title">
      <p className="screen-code" aria-hidden="true">
        404
      </p>
      <h1 id="not-found-title">{title}</h1>
      <p className="muted" data-testid="not-found-message">
        {message || NOT_FOUND_MESSAGE}
      </p>
      {children}
      <div className="actions">
        <button type="button" className="btn" onClick={() => router.history.back()}>
          Go back
        </button>
        <Link to="/" className="btn btn-primary">
          Start Over
        </Link>
      </div>
    </section>
  );
}

/** The router's not-found fallback: passes a thrown `notFound({ data: { message } })` through. */
export function DefaultNotFound({ data }: { data?: unknown }) {
  const message =
    data && typeof data === 'object' && 'message' in data && typeof data.message === 'string'
      ? data.message
      : undefined;
  return <NotFound message={message} />;
}
