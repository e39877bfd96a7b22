import type { PostEntry } from './content.types.js';
import type { SitemapUrl } from './content.service.js';

export const xmlEscape = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

/** CDATA that cannot be closed early by the text inside it. */
const cdata = (s: string) => `<![CDATA[${s.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

/** Site-relative links and images made absolute, as feed readers need. */
export const absolutize = (html: string, origin: string) =>
  html.replace(/(href|src)="\/(?!\/)/g, `$1="${origin}/`);

export function sitemapXml(urls: SitemapUrl[]): string {
  const items = urls.map(
    (u) =>
      `  <url><loc>${xmlEscape(u.loc)}</loc>${u.lastmod ? `<lastmod>${xmlEscape(u.lastmod)}</lastmod>` : ''}</url>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...items,
    '</urlset>',
    '',
  ].join('\n');
}

export function robotsTxt(origin: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    'Disallow: /api/',
    'Disallow: /settings/',
    '',
    `Sitemap: ${origin}/sitemap.xml`,
    '',
  ].join('\n');
}

/** RSS 2.0 with the full post in content:encoded. */
export function rssXml(opts: {
  origin: string;
  title: string;
  description: string;
  posts: PostEntry[];
}): string {
  const { origin, posts } = opts;
  const feedUrl = `${origin}/blog/rss.xml`;
  const latest = posts
    .map((p) => p.lastModified)
    .sort()
    .at(-1);
  const items = posts.map((p) => {
    const url = `${origin}${p.path}`;
    return [
      '    <item>',
      `      <title>${xmlEscape(p.title)}</title>`,
      `      <link>${xmlEscape(url)}</link>`,
      `      <guid isPermaLink="true">${xmlEscape(url)}</guid>`,
      `      <pubDate>${new Date(p.publishedAt).toUTCString()}</pubDate>`,
      `      <dc:creator>${xmlEscape(p.author.displayName)}</dc:creator>`,
      `      <description>${xmlEscape(p.summary)}</description>`,
      `      <content:encoded>${cdata(absolutize(p.body, origin))}</content:encoded>`,
      '    </item>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    '  <channel>',
    `    <title>${xmlEscape(opts.title)}</title>`,
    `    <link>${xmlEscape(`${origin}/blog/`)}</link>`,
    `    <description>${xmlEscape(opts.description)}</description>`,
    '    <language>en</language>',
    `    <atom:link href="${xmlEscape(feedUrl)}" rel="self" type="application/rss+xml" />`,
    ...(latest ? [`    <lastBuildDate>${new Date(latest).toUTCString()}</lastBuildDate>`] : []),
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}
