import type { StationRef } from './types.js';

/** One path segment of a station address: lowercase letters, digits, '-' and '_' (what usernames and slugs are made of). */
const SEGMENT = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const SEGMENT_MAX = 64;

/**
 * Parses the `station` attribute, `username/station-slug`. Surrounding spaces and slashes are ignored and
 * letters are lowercased (addresses are lowercase); anything else that is not exactly two valid segments
 * gives `null`.
 */
export function parseStationRef(value: string | null | undefined): StationRef | null {
  if (typeof value !== 'string') return null;
  const parts = value
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase()
    .split('/');
  if (parts.length !== 2) return null;
  const [username, slug] = parts;
  if (!isSegment(username) || !isSegment(slug)) return null;
  return { username, slug };
}

function isSegment(s: string): boolean {
  return s.length > 0 && s.length <= SEGMENT_MAX && SEGMENT.test(s);
}

export type Theme = 'light' | 'dark';

/** The theme is light or dark; anything else (including absent) is dark, the documented default. */
export function normalizeTheme(value: string | null | undefined): Theme {
  return typeof value === 'string' && value.trim().toLowerCase() === 'light' ? 'light' : 'dark';
}

/**
 * The `autoplay` attribute: absent, `false`, `0`, `no` and `off` mean off; present with any other value
 * (including the bare attribute) means on.
 */
export function parseAutoplay(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  return !['false', '0', 'no', 'off'].includes(value.trim().toLowerCase());
}

/** The station's public page: `{base}/{username}/{slug}`. */
export function stationPageUrl(apiBase: string, ref: StationRef): string {
  return `${trimBase(apiBase)}/${encodeURIComponent(ref.username)}/${encodeURIComponent(ref.slug)}`;
}

/** An API base without trailing slashes ('' stays '', meaning the page's own origin). */
export function trimBase(apiBase: string): string {
  return apiBase.replace(/\/+$/, '');
}
