import {
  PRODUCT_NAME,
  PRODUCT_TAGLINE,
  TITLE_SUFFIX,
  stationPageDescription,
  stationPageTitle,
  withTitleSuffix,
  type Station,
} from '@radiobroadcaster/contracts';

export { TITLE_SUFFIX };
export const withSuffix = withTitleSuffix;
export const stationTitle = stationPageTitle;
export const stationDescription = stationPageDescription;

type Meta = { title?: string; name?: string; property?: string; content?: string };

/** Title, description and the social tags that go with them. */
export function pageMeta(opts: { title?: string; description?: string; type?: string }): Meta[] {
  const title = opts.title ?? PRODUCT_NAME;
  const description = opts.description ?? PRODUCT_TAGLINE;
  return [
    { title },
    { name: 'description', content: description },
    { property: 'og:site_name', content: PRODUCT_NAME },
    { property: 'og:type', content: opts.type ?? 'website' },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { name: 'twitter:card', content: 'summary' },
    { name: 'twitter:title', content: title },
    { name: 'twitter:description', content: description },
  ];
}

/** A structured-data script for `head().scripts`; `<` is escaped so user text cannot end the tag. */
export function jsonLd(data: Record<string, unknown>): { type: string; children: string } {
  return {
    type: 'application/ld+json',
    children: JSON.stringify({ '@context': 'https://schema.org', ...data }).replace(
      /</g,
      '\\u003c',
    ),
  };
}

/** Breadcrumb structured data for a station page: profile → station. */
export function stationBreadcrumb(station: Pick<Station, 'name' | 'slug' | 'broadcaster'>) {
  const origin = typeof location === 'undefined' ? '' : location.origin;
  const user = station.broadcaster.username;
  return jsonLd({
    '@type': 'BreadcrumbList',
    itemListElement: [
      { '@type': 'ListItem', position: 1, name: `@${user}`, item: `${origin}/${user}/` },
      {
        '@type': 'ListItem',
        position: 2,
        name: station.name,
        item: `${origin}/${user}/${station.slug}`,
      },
    ],
  });
}
