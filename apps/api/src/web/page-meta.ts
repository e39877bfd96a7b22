import {
  PRODUCT_NAME,
  PRODUCT_TAGLINE,
  stationPageDescription,
  stationOgImagePath,
  stationPageTitle,
  TITLE_SUFFIX,
  type Station,
} from '@radiobroadcaster/contracts';
import { stationCardVersion } from '../images/images.service.js';

export { TITLE_SUFFIX };

export interface PageMeta {
  title: string;
  description: string;
  url: string;
  type?: 'website' | 'article' | 'music.radio_station';
  /** Absolute URL of the social preview image. */
  image?: string;
  jsonLd?: object[];
  /** Keep the page out of search results (unknown blog/tutorial slugs). */
  noindex?: boolean;
}

const STATIC_PAGES: Record<string, { title: string; description: string }> = {
  '/': { title: PRODUCT_NAME, description: PRODUCT_TAGLINE },
  '/about': {
    title: `About${TITLE_SUFFIX}`,
    description: 'Why we built Radio Broadcaster: live audio, low latency, no installs.',
  },
  '/embed': {
    title: `Embed a station${TITLE_SUFFIX}`,
    description: 'Put a live station on any website with one script and one element.',
  },
  '/ios': {
    title: `iOS app${TITLE_SUFFIX}`,
    description: 'Listen to and manage your stations from your iPhone.',
  },
  '/privacy': {
    title: `Privacy${TITLE_SUFFIX}`,
    description: 'What Radio Broadcaster stores, and what it never does.',
  },
  '/signin': {
    title: `Sign in${TITLE_SUFFIX}`,
    description: 'Sign in or create a broadcaster account.',
  },
  '/tutorial': {
    title: `Tutorial${TITLE_SUFFIX}`,
    description: 'Go live in minutes: create a station, pick a source, share the link.',
  },
  '/studio': {
    title: `Studio${TITLE_SUFFIX}`,
    description: 'Create stations and go live from your browser.',
  },
};

export function staticPageMeta(path: string, publicUrl: string): PageMeta {
  const clean = path.length > 1 ? path.replace(/\/$/, '') : path;
  const page = STATIC_PAGES[clean] ?? STATIC_PAGES['/']!;
  return { ...page, url: publicUrl + clean };
}

/** The station page's head: the same title and description rules as the web app's. */
export function stationMeta(station: Station, url: string, publicUrl: string): PageMeta {
  const description = stationPageDescription(station);
  // The built-in demo has no row, so no preview of its own.
  const image = station.broadcasterId
    ? publicUrl + stationOgImagePath(station.id, stationCardVersion(station))
    : undefined;
  return {
    title: stationPageTitle(station),
    description,
    url,
    type: 'music.radio_station',
    image,
    jsonLd: [
      {
        '@context': 'https://schema.org',
        '@type': 'RadioStation',
        name: station.name,
        description,
        url,
        ...(station.coverUrl ? { image: publicUrl + station.coverUrl } : {}),
      },
    ],
  };
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JSON inside <script> must not close the tag. */
const jsonForScript = (o: object) => JSON.stringify(o).replace(/</g, '\\u003c');

const REPLACED =
  /<title>[\s\S]*?<\/title>\s*|<meta\s+(?:name|property)="(?:description|og:title|og:description|og:url|og:type|og:image(?::width|:height|:alt)?|twitter:card|twitter:title|twitter:description|twitter:image)"[^>]*>\s*/g;

/** The blog feed on the same origin as the page. */
const rssUrl = (pageUrl: string) => {
  try {
    return `${new URL(pageUrl).origin}/blog/rss.xml`;
  } catch {
    return '/blog/rss.xml';
  }
};

/** The page's head tags in the HTML the server sends, for crawlers and link previews. */
export function injectMeta(html: string, meta: PageMeta): string {
  const tags = [
    `<title>${esc(meta.title)}</title>`,
    `<meta name="description" content="${esc(meta.description)}" />`,
    `<meta property="og:title" content="${esc(meta.title)}" />`,
    `<meta property="og:description" content="${esc(meta.description)}" />`,
    `<meta property="og:url" content="${esc(meta.url)}" />`,
    `<meta property="og:type" content="${meta.type ?? 'website'}" />`,
    ...(meta.image
      ? [
          `<meta property="og:image" content="${esc(meta.image)}" />`,
          '<meta property="og:image:width" content="1200" />',
          '<meta property="og:image:height" content="630" />',
          `<meta property="og:image:alt" content="${esc(meta.title)}" />`,
        ]
      : []),
    `<meta name="twitter:card" content="${meta.image ? 'summary_large_image' : 'summary'}" />`,
    `<meta name="twitter:title" content="${esc(meta.title)}" />`,
    `<meta name="twitter:description" content="${esc(meta.description)}" />`,
    ...(meta.image ? [`<meta name="twitter:image" content="${esc(meta.image)}" />`] : []),
    ...(meta.noindex ? ['<meta name="robots" content="noindex" />'] : []),
    `<link rel="canonical" href="${esc(meta.url)}" />`,
    `<link rel="alternate" type="application/rss+xml" title="${esc(PRODUCT_NAME)} blog" href="${esc(rssUrl(meta.url))}" />`,
    ...(meta.jsonLd ?? []).map(
      (o) => `<script type="application/ld+json">${jsonForScript(o)}</script>`,
    ),
  ].join('\n    ');
  return html.replace(REPLACED, '').replace('<!--app-head-->', tags);
}

/** The meta tag that tells the embed page which site was refused (read by the web app). */
export const EMBED_REFUSED_META = 'rb-embed-refused';

/** Marks an embed page framed by a site the owner did not list: the app explains instead of playing. */
export function injectEmbedRefusal(html: string, host: string): string {
  return html.replace(
    '</head>',
    `<meta name="${EMBED_REFUSED_META}" content="${esc(host)}" />\n  </head>`,
  );
}
