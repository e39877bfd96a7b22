import { errorMessage } from '../lib/api-error';

/**
 * A list that could not be loaded: what failed, why (the one wording for a network failure) and
 * Retry, in place of the list, so no list says "Loading…" forever or passes a failure off as empty.
 */
export function LoadError({
  what,
  error,
  onRetry,
  retrying = false,
}: {
  /** 'the stations', 'the replays'… */
  what: string;
  error: unknown;
  onRetry: () => void;
  retrying?: boolean;
}) {
  return (
    <div className="notice notice-warn load-error" role="alert" data-testid="load-error">
      <p>
        <strong>Could not load {what}.</strong> {errorMessage(error)}
      </p>
      <button
        type="button"
        className="btn btn-sm"
        onClick={onRetry}
        disabled={retrying}
        data-testid="load-retry"
      >
        {retrying ? 'Retrying…' : 'Retry'}
      </button>
    </div>
  );
}
