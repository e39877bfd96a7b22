/** Names and constants from the product spec; one place for every app. */
export const PRODUCT_NAME = 'Radio Broadcaster';
export const PRODUCT_TAGLINE = 'Turn Your Mac Into a Private Radio Station';
export const DEMO_USERNAME = 'radiobroadcaster';
export const DEMO_SLUG = 'demo';

/** Profile names that are never users (spec §2). */
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

/** True when a profile route must answer 'User not found' without asking the API. */
export function isReservedUsername(name: string): boolean {
  const lower = name.toLowerCase();
  return (RESERVED_USERNAMES as readonly string[]).includes(lower) || isFileLikeName(lower);
}

export const LIMITS = {
  allowedDomainsPerUser: 100,
  stationNameMax: 80,
  stationSlugMax: 64,
  descriptionMax: 2000,
  nowPlayingFieldMax: 200,
  usernameMin: 3,
  usernameMax: 32,
  passwordMin: 8,
  passwordMax: 256,
  nameMax: 80,
  sdpMaxBytes: 64 * 1024,
  jsonBodyMaxBytes: 64 * 1024,
} as const;
