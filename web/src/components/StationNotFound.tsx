import { ErrorTag } from '@radiobroadcaster/contracts';
import { toastContentFor } from '../lib/toasts';
import { NotFound } from './NotFound';

/** The spec's words for a station that is not there: "may have been deleted or doesn't exist". */
const STATION_NOT_FOUND = toastContentFor({ tag: ErrorTag.StationNotFound });

/**
 * Station-not-found view, carrying the load's error message when there is one. The server's 404
 * message is the title itself ('Station not found'): it is said once, with the reason below.
 */
export function StationNotFound({ message }: { message?: string | null }) {
  const same = !message || message.trim().toLowerCase() === STATION_NOT_FOUND.title.toLowerCase();
  return (
    <NotFound
      title={STATION_NOT_FOUND.title}
      message={same ? STATION_NOT_FOUND.description : message}
    />
  );
}
