/** Product names and constants; one place for every app. */
export const PRODUCT_NAME = 'Radio Broadcaster';
export const PRODUCT_TAGLINE = 'Turn Your Mac Into a Private Radio Station';
export const DEMO_USERNAME = 'radiobroadcaster';
export const DEMO_SLUG = 'demo';
/** Fixed ids of the demo station and its broadcaster (the server publishes it; the web app knows it). */
export const DEMO_STATION_ID = '00000000-0000-4000-8000-000000000000';
export const DEMO_USER_ID = '00000000-0000-4000-8000-000000000001';

/** Profile names that are never users: files and paths the site itself serves. */
export const RESERVED_USERNAMES = [
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
  'api',
  'static',
  'assets',
] as const;

/** A name containing a dot and ending in a three-character extension, e.g. `logo.png`. */
export function isFileLikeName(name: string): boolean {
  return /\.[^./]{3}$/.test(name);
}

/**
 * Every top-level path segment the site or the server answers itself (pages, API, media, feeds,
 * redirects, probes), plus a few kept for pages to come: `/{username}` must never be shadowed by
 * one. A test compares it with the web app's route tree and the server's routes.
 */
export const ROUTE_NAMES = [
  // web app pages
  'about',
  'blog',
  'embed',
  'forgot-password',
  'ios',
  'privacy',
  'reset-password',
  'settings',
  'signin',
  'signup',
  'station',
  'studio',
  'test-media-session',
  'tutorial',
  'tutorials',
  'verify-email',
  // server
  'api',
  'app-store',
  'appstore',
  'assets',
  'discord',
  'health',
  'icons',
  'images',
  'ingest',
  'listen',
  'metrics',
  'og',
  'press',
  'review',
  'static',
  'whep',
  'whip',
  // kept
  'account',
  'admin',
  'auth',
  'dashboard',
  'discover',
  'docs',
  'help',
  'login',
  'logout',
  'me',
  'new',
  'register',
  'search',
  'signout',
  'stations',
  'support',
  'user',
  'users',
] as const;

/** True when a name can never be a username: a served file or path, a route name, or file-like. */
export function isReservedUsername(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    (RESERVED_USERNAMES as readonly string[]).includes(lower) ||
    (ROUTE_NAMES as readonly string[]).includes(lower) ||
    isFileLikeName(lower)
  );
}

export const LIMITS = {
  allowedDomainsPerUser: 100,
  stationNameMax: 80,
  stationSlugMax: 64,
  descriptionMax: 2000,
  scheduleMax: 500,
  nowPlayingFieldMax: 200,
  usernameMin: 3,
  usernameMax: 32,
  passwordMin: 8,
  passwordMax: 256,
  nameMax: 80,
  sdpMaxBytes: 64 * 1024,
  jsonBodyMaxBytes: 64 * 1024,
} as const;
