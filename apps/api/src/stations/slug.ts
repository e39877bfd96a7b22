import { LIMITS } from '@radiobroadcaster/contracts';
import anyAscii from 'any-ascii';

/** What a name with nothing to transliterate ('!!!') gets, numbered when taken. */
export const FALLBACK_SLUG = 'station';

/**
 * 'Café Del Mar — Live!' → 'cafe-del-mar-live'; other scripts are transliterated
 * ('Радио Ночь' → 'radio-noch', '日本語ラジオ' → 'ribenyurajio', '🎵' → 'musical-note');
 * empty when nothing is left.
 */
export function slugify(name: string): string {
  const slug = anyAscii(name.normalize('NFKC'))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LIMITS.stationSlugMax)
    .replace(/-+$/g, '');
  return slug;
}

/** The n-th alternative of a derived slug that is taken: 'night-owls' → 'night-owls-2', … */
export function numberedSlug(base: string, n: number): string {
  const suffix = `-${n}`;
  return `${base.slice(0, LIMITS.stationSlugMax - suffix.length).replace(/-+$/g, '')}${suffix}`;
}
