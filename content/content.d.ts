/** The compiled collections written by content/build.mjs to content/dist/content.json. */

export interface Author {
  ref: string;
  displayName: string;
  kind: 'person' | 'organization';
  email?: string;
  avatar?: string;
  website?: string;
  twitter?: string;
  github?: string;
  social: { name: string; url: string }[];
  bio?: string;
}

/** What every compiled entry adds to its frontmatter. */
export interface CompiledFields {
  slug: string;
  /** The markdown, placeholders other than {SITE} substituted. */
  content: string;
  /** Compiled HTML from our own markdown (raw HTML in it is escaped); may contain {SITE}. */
  body: string;
  /** Minutes, rounded up. */
  readingTime: number;
  wordCount: number;
  /** Site path, e.g. /tutorials/wix-radio-broadcaster. */
  path: string;
  filePath: string;
  fileName: string;
  directory: string;
  extension: string;
  headings: { id: string; text: string }[];
  /** Head tags and structured data for the entry's page; URLs start with {SITE}. */
  seo: PageSeo;
}

/** What a page puts in its head; every URL starts with {SITE}, the public origin. */
export interface PageSeo {
  title: string;
  description: string;
  url: string;
  image?: string;
  type: 'website' | 'article';
  /** schema.org objects, each with its own @context. */
  jsonLd: Record<string, unknown>[];
}

interface CommonFrontmatter {
  title: string;
  summary: string;
  image: string;
  /** ISO 8601. */
  publishedAt: string;
  lastModified: string;
}

export interface BlogPost extends CommonFrontmatter, CompiledFields {
  author: Author;
}

export interface Tutorial extends CommonFrontmatter, CompiledFields {
  seoTitle: string;
  platform: string;
  difficulty: 'beginner' | 'intermediate' | 'advanced';
  category: 'embedding' | 'broadcasting';
  order: number;
  /** 'Step n: …' / 'Method n: …' headings with their text, for HowTo structured data. */
  steps: { name: string; text: string; id: string }[];
  /** HTML code blocks that place a <radio-player>, with {SITE} unsubstituted. */
  snippets: string[];
}

export interface Collections {
  player: { gzipBytes: number | null; sizeText: string };
  blog: BlogPost[];
  tutorials: Tutorial[];
  indexes: { blog: PageSeo; tutorials: PageSeo };
}
