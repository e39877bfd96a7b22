import collections from 'virtual:rb-content';
import type { BlogPost, Tutorial } from '../../../content/content';

export type { BlogPost, PageSeo, Tutorial } from '../../../content/content';

/** The blog, newest first; tutorials in index order. Compiled from content/ at build time. */
export const posts: BlogPost[] = collections.blog;
export const tutorials: Tutorial[] = collections.tutorials;
export const indexSeo = collections.indexes;
export const playerSize = collections.player.sizeText;

export const getPost = (slug: string) => posts.find((p) => p.slug === slug) ?? null;
export const getTutorial = (slug: string) => tutorials.find((t) => t.slug === slug) ?? null;

export { seoWithSite, siteOrigin, withSite } from './site';
