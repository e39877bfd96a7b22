/**
 * The part of the compiled content (content/dist/content.json, written by content/build.mjs) that the
 * API reads: the types of content/content.d.ts kept to the fields the server uses.
 */
import type { BlogPost, Collections, PageSeo } from '../../../../content/content.js';

export type { PageSeo };

type Entry = Pick<
  BlogPost,
  'slug' | 'title' | 'summary' | 'image' | 'publishedAt' | 'lastModified' | 'path' | 'body' | 'seo'
>;

export interface PostEntry extends Entry {
  author: Pick<BlogPost['author'], 'displayName' | 'email'>;
}

export type TutorialEntry = Entry;

export interface CompiledContent {
  blog: PostEntry[];
  tutorials: TutorialEntry[];
  indexes: Collections['indexes'];
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
