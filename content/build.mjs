#!/usr/bin/env node
// Compiles content/blog/*.md and content/tutorials/*.md into typed collections (content/content.d.ts):
// frontmatter validated by content/schema.mjs, markdown compiled to HTML by marked, reading time and
// word count by reading-time. Writes content/dist/content.json, read by the web app (vite plugin) and
// by the API (sitemap, feed, server-side meta).
//
//   node content/build.mjs                  # build into content/dist/content.json
//   node content/build.mjs --dir X --out Y  # another source folder / output file (tests)
//
// Placeholders in the markdown: {SITE} is the site's public origin, substituted where the page is
// rendered (so a copied snippet points at the server that served it); {PLAYER_SIZE} is the measured
// gzipped size of libs/player/dist/player.js, substituted here.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import matter from 'gray-matter';
import { Marked } from 'marked';
import readingTime from 'reading-time';
import { BlogFrontmatter, TutorialFrontmatter } from './schema.mjs';
import { indexSeo, postSeo, tutorialSeo } from './seo.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');

export const COLLECTIONS = /** @type {const} */ ({
  blog: { schema: BlogFrontmatter, base: '/blog' },
  tutorials: { schema: TutorialFrontmatter, base: '/tutorials' },
});

const escapeHtml = (s) =>
  String(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

export const slugify = (s) =>
  s
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/&[a-z]+;/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Markdown inline syntax to plain text, for structured data and word counts. */
export function plainText(md) {
  return md
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,3}([^*_]+)[*_]{1,3}/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Our own markdown only, but raw HTML in it is still escaped: the compiled body holds nothing the
 * markdown syntax did not make, so the web app can render it as HTML.
 */
function createMarked() {
  const m = new Marked({ gfm: true });
  m.use({
    renderer: {
      html({ text }) {
        return escapeHtml(text);
      },
      heading({ tokens, depth }) {
        const inner = this.parser.parseInline(tokens);
        const id = slugify(inner);
        return `<h${depth} id="${id}">${inner}</h${depth}>\n`;
      },
      code({ text, lang }) {
        const language = (lang ?? '').split(/\s/)[0];
        const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
        const data = language ? ` data-lang="${escapeHtml(language)}"` : '';
        return `<pre${data}><code${cls}>${escapeHtml(text)}</code></pre>\n`;
      },
      link({ href, title, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const external = /^https?:\/\//.test(href);
        const t = title ? ` title="${escapeHtml(title)}"` : '';
        const rel = external ? ' rel="noopener noreferrer" target="_blank"' : '';
        return `<a href="${escapeHtml(href)}"${t}${rel}>${inner}</a>`;
      },
      image({ href, title, text }) {
        const t = title ? ` title="${escapeHtml(title)}"` : '';
        return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}"${t} loading="lazy" />`;
      },
    },
  });
  return m;
}

/** '## Step 3: Paste the code' headings and the text under them, for HowTo structured data. */
function extractSteps(tokens) {
  const steps = [];
  let current = null;
  for (const t of tokens) {
    if (t.type === 'heading') {
      const m = /^(?:Step\s+\d+|Method\s+\d+)\s*[:.–-]\s*(.+)$/i.exec(t.text);
      current =
        m && t.depth <= 3
          ? { name: plainText(m[1]), text: '', id: slugify(t.text.replace(/`/g, '')) }
          : null;
      if (current) steps.push(current);
    } else if (current && (t.type === 'paragraph' || t.type === 'list')) {
      current.text = `${current.text} ${plainText(t.raw)}`.trim();
    }
  }
  return steps.map((s) => ({ ...s, text: s.text || s.name }));
}

/** Table of contents: h2 headings. */
function extractHeadings(tokens) {
  return tokens
    .filter((t) => t.type === 'heading' && t.depth === 2)
    .map((t) => ({ id: slugify(t.text.replace(/`/g, '')), text: plainText(t.text) }));
}

/** Every HTML code block that places a player: what the embed test pastes into a page. */
function extractSnippets(tokens) {
  const out = [];
  const walk = (list) => {
    for (const t of list) {
      if (t.type === 'code' && /<radio-player[\s>]/.test(t.text) && /^html/.test(t.lang ?? ''))
        out.push(t.text);
      if (t.tokens) walk(t.tokens);
      if (t.items) walk(t.items);
    }
  };
  walk(tokens);
  return out;
}

export function playerGzipBytes(playerFile = resolve(REPO, 'libs/player/dist/player.js')) {
  if (!existsSync(playerFile)) return null;
  return gzipSync(readFileSync(playerFile), { level: 9 }).length;
}

/** '10 KB', rounded up so the claim stays true; 'under 20 KB' (the build budget) before a build. */
export function playerSizeText(bytes) {
  return bytes === null ? 'under 20 KB' : `${Math.ceil(bytes / 1024)} KB`;
}

function formatIssues(error) {
  return error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
}

/** One markdown file to an entry of its collection; throws an Error naming the file. */
export function compileFile(file, collection, opts) {
  const { schema, base } = COLLECTIONS[collection];
  const rel = relative(opts.root, file);
  let parsed;
  try {
    parsed = matter(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${rel}: cannot parse frontmatter: ${err.message}`);
  }
  const fm = schema.safeParse(parsed.data);
  if (!fm.success) throw new Error(`${rel}: invalid frontmatter\n${formatIssues(fm.error)}`);
  if (opts.publicDir && !existsSync(join(opts.publicDir, fm.data.image)))
    throw new Error(
      `${rel}: image ${fm.data.image} not found in ${relative(opts.root, opts.publicDir)}`,
    );
  if (fm.data.lastModified < fm.data.publishedAt)
    throw new Error(`${rel}: lastModified is before publishedAt`);

  const content = parsed.content.replaceAll('{PLAYER_SIZE}', opts.playerSize).trim() + '\n';
  const marked = createMarked();
  const tokens = marked.lexer(content);
  const body = marked.parser(tokens);
  const stats = readingTime(plainText(content));
  const extension = extname(file);
  const slug = basename(file, extension);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug))
    throw new Error(`${rel}: file name must be a lowercase slug (a-z, 0-9, dashes)`);

  const entry = {
    ...fm.data,
    slug,
    content,
    body,
    readingTime: Math.max(1, Math.ceil(stats.minutes)),
    wordCount: stats.words,
    path: `${base}/${slug}`,
    filePath: relative(opts.root, file),
    fileName: basename(file),
    directory: relative(opts.root, dirname(file)),
    extension: extension.slice(1),
    headings: extractHeadings(tokens),
    ...(collection === 'tutorials'
      ? { steps: extractSteps(tokens), snippets: extractSnippets(tokens) }
      : {}),
  };
  if (collection === 'tutorials') {
    if (entry.steps.length === 0)
      throw new Error(
        `${rel}: a tutorial needs 'Step n: …' or 'Method n: …' headings (HowTo steps)`,
      );
    if (entry.snippets.length === 0)
      throw new Error(`${rel}: a tutorial needs an html code block with a <radio-player>`);
    entry.seo = tutorialSeo({ ...entry, stepIds: entry.steps.map((s) => s.id) });
  } else entry.seo = postSeo(entry);
  return entry;
}

/** Compiles both collections from `dir` (default: this folder). Throws on the first bad file. */
export function buildContent(opts = {}) {
  const dir = resolve(opts.dir ?? HERE);
  const root = opts.root ?? REPO;
  const publicDir = opts.publicDir === undefined ? resolve(REPO, 'web/public') : opts.publicDir;
  const gz = playerGzipBytes();
  const ctx = { root, publicDir, playerSize: playerSizeText(gz) };
  const read = (collection) => {
    const folder = join(dir, collection);
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => compileFile(join(folder, f), collection, ctx));
  };
  const blog = read('blog').sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
  const tutorials = read('tutorials').sort(
    (a, b) => a.order - b.order || a.title.localeCompare(b.title),
  );
  return {
    player: { gzipBytes: gz, sizeText: ctx.playerSize },
    blog,
    tutorials,
    indexes: { blog: indexSeo('blog', blog), tutorials: indexSeo('tutorials', tutorials) },
  };
}

export const DEFAULT_OUT = resolve(HERE, 'dist/content.json');

export function writeContent(collections, out = DEFAULT_OUT) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(collections, null, 1));
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  try {
    const dir = arg('--dir');
    const collections = buildContent({
      dir,
      publicDir: dir ? null : undefined,
    });
    const out = writeContent(collections, arg('--out') ? resolve(arg('--out')) : DEFAULT_OUT);
    console.log(
      `content: ${collections.blog.length} posts, ${collections.tutorials.length} tutorials → ${relative(process.cwd(), out)}`,
    );
  } catch (err) {
    console.error(`content build failed: ${err.message}`);
    process.exit(1);
  }
}
