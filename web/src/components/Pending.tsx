/** Shown by the router after 500 ms of loading, for at least 200 ms, so quick loads never flash it. */
export function Pending() {
  return (
    <div className="pending" role="status" aria-live="polite" data-testid="pending">
      <span className="pending-bar" aria-hidden="true" />
      <span className="spinner" aria-hidden="true" />
      <span className="muted">Loading...</span>
    </div>
  );
}
