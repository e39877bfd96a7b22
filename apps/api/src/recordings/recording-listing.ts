import type { RecordingStatus } from '@radiobroadcaster/contracts';

/**
 * Whether a recording is publicly listed (replay lists, the podcast feed): the one rule every
 * public listing asks, so a change of what makes a recording public is made here.
 */
export function isPubliclyListed(r: { published: boolean; status: RecordingStatus }): boolean {
  return r.published && r.status !== 'recording';
}
