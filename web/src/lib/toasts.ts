import { ErrorTag } from '@radiobroadcaster/contracts';
import { toast } from 'sonner';
import { errorMessage, errorTag, NETWORK_ERROR_TEXT } from './api-error';

export interface ToastContent {
  title: string;
  description: string;
}

/** Title and description chosen by error tag, so each failure reads the same everywhere; anything else uses the caller's title. */
export function toastContentFor(err: unknown, title?: string): ToastContent {
  switch (errorTag(err) ?? '') {
    case ErrorTag.StationNotFound:
      return {
        title: 'Station not found',
        description: "This station may have been deleted or doesn't exist.",
      };
    case ErrorTag.StationNotActive:
      return {
        title: 'Station offline',
        description: 'This station is not currently broadcasting.',
      };
    case ErrorTag.NetworkError:
      return { ...NETWORK_ERROR_TEXT };
    case ErrorTag.Unauthorized:
      return {
        title: 'Authentication required',
        description: 'Please log in to perform this action.',
      };
    default:
      return { title: title ?? 'An error occurred', description: errorMessage(err) };
  }
}

/** Shows the error toast; the same tag replaces its previous toast instead of stacking. */
export function showErrorToast(err: unknown, title?: string): void {
  const content = toastContentFor(err, title);
  toast.error(content.title, {
    id: `error:${errorTag(err) ?? content.title}`,
    description: content.description,
  });
}
