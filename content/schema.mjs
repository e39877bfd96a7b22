// Frontmatter schemas for content/blog and content/tutorials: a bad field fails the build, not a page.
// A file whose frontmatter does not match fails the content build with its name.
import { z } from 'zod';

/** YAML turns unquoted dates into Date objects; both forms become an ISO string. */
const isoDate = z.union([z.string(), z.date()]).transform((v, ctx) => {
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${String(v)}` });
    return z.NEVER;
  }
  return d.toISOString();
});

/** A site path such as /images/tutorials/wix.png, or an absolute https URL. */
const sitePathOrUrl = z
  .string()
  .regex(/^(\/[^\s]*|https:\/\/[^\s]+)$/, 'must be a site path (/...) or an https URL');

export const AuthorSchema = z.strictObject({
  ref: z.string().regex(/^[a-z0-9-]+$/, 'lowercase letters, digits and dashes'),
  displayName: z.string().min(1),
  /** schema.org type of the author in structured data. */
  kind: z.enum(['person', 'organization']).default('person'),
  email: z.string().email().optional(),
  avatar: sitePathOrUrl.optional(),
  website: sitePathOrUrl.optional(),
  twitter: z.string().optional(),
  github: z.string().optional(),
  social: z.array(z.strictObject({ name: z.string(), url: z.string().url() })).default([]),
  bio: z.string().optional(),
});

const common = {
  title: z.string().min(5).max(120),
  summary: z.string().min(40).max(300),
  image: z.string().regex(/^\/images\/[a-z0-9/_.-]+\.(png|svg|jpg|webp)$/, 'an /images/ path'),
  publishedAt: isoDate,
  lastModified: isoDate,
};

export const BlogFrontmatter = z.strictObject({
  ...common,
  author: AuthorSchema,
});

export const TutorialFrontmatter = z.strictObject({
  ...common,
  seoTitle: z.string().min(10).max(70),
  platform: z.string().min(2),
  difficulty: z.enum(['beginner', 'intermediate', 'advanced']),
  category: z.enum(['embedding', 'broadcasting']),
  /** Position on the tutorial index (lower first). */
  order: z.number().int().default(100),
});
