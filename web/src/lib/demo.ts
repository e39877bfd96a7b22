import {
  DEMO_SLUG,
  DEMO_STATION_ID,
  DEMO_USER_ID,
  DEMO_USERNAME,
  PRODUCT_NAME,
  type Station,
} from '@radiobroadcaster/contracts';

/**
 * The demo pair's built-in data: what the `/embed/…` loader serves with no call (the spec's rule),
 * and what the site shows where the server does not run the demo. The server publishes the demo
 * station itself (same id), so the site's pages show it as it is (now playing, listeners): Play
 * listens to it live, or to a generated chord where the server does not run it.
 */
export const DEMO_STATION: Station = {
  id: DEMO_STATION_ID,
  name: `${PRODUCT_NAME} Demo`,
  slug: DEMO_SLUG,
  description: 'A demo station that shows what a live station looks like.',
  broadcasterId: DEMO_USER_ID,
  broadcaster: {
    id: DEMO_USER_ID,
    username: DEMO_USERNAME,
    name: PRODUCT_NAME,
    avatarUrl: null,
  },
  isActive: true,
  status: 'live',
  viewerCount: 0,
  nowPlaying: { track: 'Demo Track', artist: 'Demo Artist', album: 'Demo Album' },
  createdAt: '2025-10-27T00:00:00.000Z',
  lastActiveAt: '2025-10-27T00:00:00.000Z',
  coverUrl: null,
  schedule: '',
};

export function isDemoPair(username: string, stationSlug: string): boolean {
  return username.toLowerCase() === DEMO_USERNAME && stationSlug.toLowerCase() === DEMO_SLUG;
}

export function isDemoStationId(stationId: string): boolean {
  return stationId === DEMO_STATION.id;
}
