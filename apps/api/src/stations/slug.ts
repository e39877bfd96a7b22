import { LIMITS } from '@radiobroadcaster/contracts';

/** 'Café Del Mar — Live!' → 'cafe-del-mar-live'. Never empty. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LIMITS.stationSlugMax)
    .replace(/-+$/g, '');
  return slug || 'station';
}
