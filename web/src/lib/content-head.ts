import type { PageSeo } from '../../../content/content';
import { pageMeta, withSuffix } from './seo';
import { seoWithSite } from './site';

/** A route's head() from a content page's SEO: the same tags the server puts in the HTML it sends. */
export function contentHead(seo: PageSeo) {
  const s = seoWithSite(seo);
  return {
    meta: [
      { title: s.title },
      { name: 'description', content: s.description },
      { property: 'og:site_name', content: 'Radio Broadcaster' },
      { property: 'og:type', content: s.type },
      { property: 'og:title', content: s.title },
      { property: 'og:description', content: s.description },
      { property: 'og:url', content: s.url },
      ...(s.image ? [{ property: 'og:image', content: s.image }] : []),
      { name: 'twitter:card', content: s.image ? 'summary_large_image' : 'summary' },
      { name: 'twitter:title', content: s.title },
      { name: 'twitter:description', content: s.description },
      ...(s.image ? [{ name: 'twitter:image', content: s.image }] : []),
    ],
    scripts: s.jsonLd.map((o) => ({
      type: 'application/ld+json',
      children: JSON.stringify(o).replace(/</g, '\\u003c'),
    })),
  };
}

export const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  });

/** head() of an article route: its SEO tags, or a noindex "not found" title when the slug is unknown. */
export function articleHead(seo: PageSeo | undefined, notFoundTitle: string) {
  if (seo) return contentHead(seo);
  return {
    meta: [
      ...pageMeta({ title: withSuffix(notFoundTitle) }),
      { name: 'robots', content: 'noindex' },
    ],
  };
}
