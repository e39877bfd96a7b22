import { NotFound } from './NotFound';

/** Station-not-found view, carrying the load's error message when there is one. */
export function StationNotFound({ message }: { message?: string | null }) {
  return <NotFound title="Station not found" message={message || undefined} />;
}
