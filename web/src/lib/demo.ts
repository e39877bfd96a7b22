import { DEMO_SLUG, DEMO_USERNAME, PRODUCT_NAME, type Station } from '@radiobroadcaster/contracts';

const DEMO_USER_ID = '00000000-0000-4000-8000-000000000001';

/** Spec §2: the demo pair is served from built-in data with no call. */
export const DEMO_STATION: Station = {
  id: '00000000-0000-4000-8000-000000000000',
  name: `${PRODUCT_NAME} Demo`,
  slug: DEMO_SLUG,
  description: 'A demo station that shows what a live station looks like.',
  broadcasterId: DEMO_USER_ID,
  broadcaster: { id: DEMO_USER_ID, username: DEMO_USERNAME, name: PRODUCT_NAME },
  isActive: true,
  status: 'live',
  viewerCount: 0,
  nowPlaying: { track: 'Demo Track', artist: 'Demo Artist', album: 'Demo Album' },
  createdAt: '2025-10-27T00:00:00.000Z',
  lastActiveAt: '2025-10-27T00:00:00.000Z',
};

export function isDemoPair(username: string, stationSlug: string): boolean {
  return username.toLowerCase() === DEMO_USERNAME && stationSlug.toLowerCase() === DEMO_SLUG;
}

export function isDemoStationId(stationId: string): boolean {
  return stationId === DEMO_STATION.id;
}
