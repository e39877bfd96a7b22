import type { Recording } from '@radiobroadcaster/contracts';
import { recordingAccess } from './recording-access.js';

/**
 * Whether a recording is publicly listed (replay lists, the podcast feed): {@link recordingAccess}
 * for a stranger, on the recording's effective visibility (its own setting, else its station's).
 */
export function isPubliclyListed(r: Pick<Recording, 'visibility' | 'status'>): boolean {
  return recordingAccess(
    { visibility: r.visibility, status: r.status },
    { visibility: r.visibility },
    { owner: false, admitted: false },
  ).listed;
}
