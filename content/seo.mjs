// Titles, descriptions and schema.org structured data for the content pages, computed at build time.
// URLs start with {SITE}: the web app and the API put the public origin in where they render.
export const SITE_NAME = 'Radio Broadcaster';
export const SITE_TAGLINE = 'Turn Your Mac Into a Private Radio Station';
export const SUFFIX = ` | ${SITE_NAME}`;
const SITE = '{SITE}';
const CTX = 'https://schema.org';

const publisher = {
  '@type': 'Organization',
  name: SITE_NAME,
  url: `${SITE}/`,
  logo: { '@type': 'ImageObject', url: `${SITE}/favicon.svg` },
};

export const INDEXES = {
  blog: {
    path: '/blog/',
    name: 'Blog',
    title: `Blog${SUFFIX}`,
    description: 'News, guides and behind-the-scenes notes from the Radio Broadcaster team.',
  },
  tutorials: {
    path: '/tutorials/',
    name: 'Tutorials',
    title: `Embed tutorials${SUFFIX}`,
    description:
      'Step-by-step guides to put a live radio player on WordPress, Wix, Squarespace, Webflow, plain HTML, React and Next.js.',
  },
};

function breadcrumb(items) {
  return {
    '@context': CTX,
    '@type': 'BreadcrumbList',
    itemListElement: items.map(([name, path], i) => ({
      '@type': 'ListItem',
      position: i + 1,
      name,
      item: `${SITE}${path}`,
    })),
  };
}

function author(a) {
  return {
    '@type': a.kind === 'organization' ? 'Organization' : 'Person',
    name: a.displayName,
    ...(a.website ? { url: a.website.startsWith('/') ? `${SITE}${a.website}` : a.website } : {}),
  };
}

export function tutorialSeo(t) {
  const url = `${SITE}${t.path}`;
  return {
    title: `${t.seoTitle}${SUFFIX}`,
    description: t.summary,
    url,
    image: `${SITE}${t.image}`,
    type: 'article',
    jsonLd: [
      {
        '@context': CTX,
        '@type': 'HowTo',
        name: t.title,
        description: t.summary,
        image: `${SITE}${t.image}`,
        url,
        datePublished: t.publishedAt,
        dateModified: t.lastModified,
        inLanguage: 'en',
        step: t.steps.map((s, i) => ({
          '@type': 'HowToStep',
          position: i + 1,
          name: s.name,
          text: s.text,
          url: `${url}#${t.stepIds[i]}`,
        })),
      },
      breadcrumb([
        ['Home', '/'],
        [INDEXES.tutorials.name, INDEXES.tutorials.path],
        [t.title, t.path],
      ]),
    ],
  };
}

export function postSeo(p) {
  const url = `${SITE}${p.path}`;
  return {
    title: `${p.title}${SUFFIX}`,
    description: p.summary,
    url,
    image: `${SITE}${p.image}`,
    type: 'article',
    jsonLd: [
      {
        '@context': CTX,
        '@type': 'BlogPosting',
        headline: p.title,
        description: p.summary,
        image: `${SITE}${p.image}`,
        url,
        mainEntityOfPage: url,
        datePublished: p.publishedAt,
        dateModified: p.lastModified,
        wordCount: p.wordCount,
        inLanguage: 'en',
        author: author(p.author),
        publisher,
      },
      breadcrumb([
        ['Home', '/'],
        [INDEXES.blog.name, INDEXES.blog.path],
        [p.title, p.path],
      ]),
    ],
  };
}

export function indexSeo(which, entries) {
  const idx = INDEXES[which];
  const url = `${SITE}${idx.path}`;
  return {
    title: idx.title,
    description: idx.description,
    url,
    type: 'website',
    jsonLd: [
      {
        '@context': CTX,
        '@type': 'ItemList',
        name: idx.name,
        url,
        numberOfItems: entries.length,
        itemListElement: entries.map((e, i) => ({
          '@type': 'ListItem',
          position: i + 1,
          url: `${SITE}${e.path}`,
          name: e.title,
        })),
      },
      breadcrumb([
        ['Home', '/'],
        [idx.name, idx.path],
      ]),
    ],
  };
}
