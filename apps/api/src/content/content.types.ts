/**
 * The part of the compiled content (content/dist/content.json, written by content/build.mjs) that the
 * API reads. The full types are in content/content.d.ts; these are kept to what the server uses.
 */
export interface PageSeo {
  title: string;
  description: string;
  url: string;
  image?: string;
  type: 'website' | 'article';
  jsonLd: Record<string, unknown>[];
}

interface Entry {
  slug: string;
  title: string;
  summary: string;
  image: string;
  publishedAt: string;
  lastModified: string;
  path: string;
  body: string;
  seo: PageSeo;
}

export interface PostEntry extends Entry {
  author: { displayName: string; email?: string };
}

export type TutorialEntry = Entry;

export interface CompiledContent {
  blog: PostEntry[];
  tutorials: TutorialEntry[];
  indexes: { blog: PageSeo; tutorials: PageSeo };
}

export const EMPTY_CONTENT: CompiledContent = {
  blog: [],
  tutorials: [],
  indexes: {
    blog: { title: 'Blog', description: '', url: '{SITE}/blog/', type: 'website', jsonLd: [] },
    tutorials: {
      title: 'Tutorials',
      description: '',
      url: '{SITE}/tutorials/',
      type: 'website',
      jsonLd: [],
    },
  },
};
