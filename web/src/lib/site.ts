import type { PageSeo } from '../../../content/content';

/** The public origin of this site: where /player.js and the stations are served. */
export const siteOrigin = () => (typeof location === 'undefined' ? '' : location.origin);

/** Puts this site's origin where the content says {SITE}, so copied snippets work as written. */
export const withSite = (text: string): string => text.replaceAll('{SITE}', siteOrigin());

/** A page's SEO with {SITE} filled in. */
export function seoWithSite(seo: PageSeo): PageSeo {
  return JSON.parse(withSite(JSON.stringify(seo))) as PageSeo;
}
