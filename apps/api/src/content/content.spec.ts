import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { CONTENT_JSON } from './content.service.js';
import type { CompiledContent } from './content.types.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const BUILD = join(REPO, 'content/build.mjs');

type Ld = Record<string, unknown> & { '@type': string };

/** Every JSON-LD block in the HTML the server sent, parsed. */
function jsonLdOf(html: string): Ld[] {
  const blocks = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
  return blocks.map((m) => JSON.parse(m[1]!) as Ld);
}

const meta = (html: string, key: string) =>
  new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(html)?.[1];

function expectBreadcrumb(ld: Ld[], lastItem: string) {
  const crumbs = ld.find((o) => o['@type'] === 'BreadcrumbList');
  expect(crumbs).toBeDefined();
  const items = crumbs!.itemListElement as { position: number; name: string; item: string }[];
  expect(items.length).toBeGreaterThanOrEqual(2);
  items.forEach((it, i) => {
    expect(it.position).toBe(i + 1);
    expect(it.name).toEqual(expect.any(String));
    expect(it.item).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });
  expect(items.at(-1)!.item).toBe(lastItem);
}

describe('content: pages, structured data, sitemap, robots, feed', () => {
  let t: TestApp;
  let owner: TestUser;
  let content: CompiledContent;
  let origin: string;

  beforeAll(async () => {
    execFileSync(process.execPath, [BUILD], { cwd: REPO, stdio: 'pipe' });
    content = JSON.parse(readFileSync(CONTENT_JSON, 'utf8')) as CompiledContent;
    // The public URL is the test server's own origin, so absolute URLs in the HTML are real.
    const port = 30000 + Math.floor(Math.random() * 20000);
    t = await startTestApp({
      env: { PUBLIC_URL: `http://127.0.0.1:${port}`, SUPPORT_EMAIL: 'help@radio.test' },
    });
    origin = t.config.publicUrl;
    owner = await signUp(t.url);
    await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Sitemap Radio', description: 'For the sitemap' })
      .expect(201)
      .then((r) => (r.body as CreateStationResponse).station);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('bundles two posts and the six tutorials with their published figures', () => {
    expect(content.blog).toHaveLength(2);
    const slugs = content.tutorials.map((x) => x.slug);
    for (const platform of ['wordpress', 'wix', 'squarespace', 'webflow', 'html'])
      expect(slugs).toContain(`${platform}-radio-broadcaster`);
    expect(slugs).toContain('react-nextjs-radio-broadcaster');
    for (const tut of content.tutorials as unknown as {
      readingTime: number;
      wordCount: number;
      difficulty: string;
      category: string;
      publishedAt: string;
    }[]) {
      expect(tut.readingTime).toBeGreaterThanOrEqual(2);
      expect(tut.readingTime).toBeLessThanOrEqual(5);
      expect(tut.wordCount).toBeGreaterThanOrEqual(208);
      expect(tut.wordCount).toBeLessThanOrEqual(948);
      expect(tut.difficulty).toBe('beginner');
      expect(tut.category).toBe('embedding');
      expect(tut.publishedAt).toMatch(/^2025-10-(2\d|3[01])/);
    }
    const times = (content.blog as unknown as { readingTime: number }[])
      .map((p) => p.readingTime)
      .sort();
    expect(times).toEqual([2, 3]);
  });

  it('sends HowTo and BreadcrumbList on every tutorial, with its title and social tags', async () => {
    for (const tut of content.tutorials) {
      const res = await request(t.url).get(tut.path).expect(200);
      const url = `${origin}${tut.path}`;
      expect(res.text).toContain(`<link rel="canonical" href="${url}" />`);
      expect(meta(res.text, 'og:title')).toMatch(/ \| Radio Broadcaster$/);
      expect(meta(res.text, 'og:image')).toBe(`${origin}${tut.image}`);
      expect(meta(res.text, 'twitter:card')).toBe('summary_large_image');
      expect(meta(res.text, 'description')).toBeTruthy();
      expect((res.text.match(/<title>/g) ?? []).length).toBe(1);
      const ld = jsonLdOf(res.text);
      const howTo = ld.find((o) => o['@type'] === 'HowTo');
      expect(howTo).toBeDefined();
      expect(howTo!['@context']).toBe('https://schema.org');
      expect(howTo!.name).toBe(tut.title);
      const steps = howTo!.step as { '@type': string; text: string; position: number }[];
      expect(steps.length).toBeGreaterThanOrEqual(3);
      for (const s of steps) {
        expect(s['@type']).toBe('HowToStep');
        expect(s.text.length).toBeGreaterThan(10);
        expect(s.text).not.toContain('{SITE}');
      }
      expectBreadcrumb(ld, url);
    }
  });

  it('sends BlogPosting and BreadcrumbList on every post', async () => {
    for (const post of content.blog) {
      const res = await request(t.url).get(post.path).expect(200);
      const ld = jsonLdOf(res.text);
      const posting = ld.find((o) => o['@type'] === 'BlogPosting');
      expect(posting).toBeDefined();
      expect(posting!.headline).toBe(post.title);
      expect(new Date(posting!.datePublished as string).toISOString()).toBe(post.publishedAt);
      const author = posting!.author as { '@type': string; name: string };
      expect(['Person', 'Organization']).toContain(author['@type']);
      expect(author.name).toBe(post.author.displayName);
      expect(meta(res.text, 'og:type')).toBe('article');
      expect(res.text).toContain(
        `<link rel="alternate" type="application/rss+xml" title="Radio Broadcaster blog" href="${origin}/blog/rss.xml" />`,
      );
      expectBreadcrumb(ld, `${origin}${post.path}`);
    }
  });

  it('sends ItemList and BreadcrumbList on the indexes', async () => {
    for (const [path, entries] of [
      ['/blog/', content.blog],
      ['/tutorials/', content.tutorials],
    ] as const) {
      for (const variant of [path, path.slice(0, -1)]) {
        const res = await request(t.url).get(variant).expect(200);
        const ld = jsonLdOf(res.text);
        const list = ld.find((o) => o['@type'] === 'ItemList');
        expect(list).toBeDefined();
        const items = list!.itemListElement as { position: number; url: string }[];
        expect(items.map((i) => i.url)).toEqual(entries.map((e) => `${origin}${e.path}`));
        expect(items.map((i) => i.position)).toEqual(entries.map((_, i) => i + 1));
        expectBreadcrumb(ld, `${origin}${path}`);
        expect(res.text).toMatch(/<title>(Blog|Embed tutorials) \| Radio Broadcaster<\/title>/);
      }
    }
  });

  it('answers unknown slugs with 404, the not-found title and noindex', async () => {
    const post = await request(t.url).get('/blog/no-such-post').expect(404);
    expect(post.text).toContain('<title>Post not found | Radio Broadcaster</title>');
    expect(post.text).toContain('<meta name="robots" content="noindex" />');
    expect(post.text).toContain('<div id="root"></div>');
    const tut = await request(t.url).get('/tutorials/no-such-tutorial').expect(404);
    expect(tut.text).toContain('<title>Tutorial not found | Radio Broadcaster</title>');
  });

  it('lists every public page, post, tutorial and station in sitemap.xml', async () => {
    const res = await request(t.url).get('/sitemap.xml').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(XMLValidator.validate(res.text)).toBe(true);
    const doc = new XMLParser().parse(res.text) as { urlset: { url: { loc: string }[] } };
    const locs = doc.urlset.url.map((u) => u.loc);
    for (const p of [
      '/',
      '/about',
      '/embed',
      '/ios',
      '/privacy',
      '/tutorial',
      '/blog/',
      '/tutorials/',
    ])
      expect(locs).toContain(`${origin}${p}`);
    for (const e of [...content.blog, ...content.tutorials])
      expect(locs).toContain(`${origin}${e.path}`);
    expect(locs).toContain(`${origin}/${owner.username}/sitemap-radio`);
    expect(locs).toContain(`${origin}/${owner.username}/`);
    expect(locs).toContain(`${origin}/radiobroadcaster/demo`);
    expect(locs.some((l) => l.includes('/settings') || l.includes('/api/'))).toBe(false);
  });

  it('serves robots.txt: allow all, keep out of /api/ and /settings/, point at the sitemap', async () => {
    const res = await request(t.url).get('/robots.txt').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    const lines = res.text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'User-agent: *',
        'Allow: /',
        'Disallow: /api/',
        'Disallow: /settings/',
        `Sitemap: ${origin}/sitemap.xml`,
      ]),
    );
  });

  it('serves the blog as RSS 2.0 that parses, with both posts', async () => {
    for (const path of ['/blog/rss.xml', '/feed.xml']) {
      const res = await request(t.url).get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/application\/rss\+xml/);
      expect(XMLValidator.validate(res.text)).toBe(true);
      const doc = new XMLParser({ ignoreAttributes: false }).parse(res.text) as {
        rss: {
          '@_version': string;
          channel: {
            title: string;
            item: { title: string; link: string; 'content:encoded': string }[];
          };
        };
      };
      expect(doc.rss['@_version']).toBe('2.0');
      const items = doc.rss.channel.item;
      expect(items.map((i) => i.link).sort()).toEqual(
        content.blog.map((p) => `${origin}${p.path}`).sort(),
      );
      for (const item of items) {
        expect(item['content:encoded']).toContain('<p>');
        expect(item['content:encoded']).not.toContain('{SITE}');
        expect(item['content:encoded']).not.toMatch(/(href|src)="\/[^/]/);
      }
    }
  });

  it('tells the web app the site facts, with the configured support e-mail', async () => {
    const res = await request(t.url).get('/api/site').expect(200);
    expect(res.body).toEqual({
      name: 'Radio Broadcaster',
      tagline: 'Turn Your Mac Into a Private Radio Station',
      supportEmail: 'help@radio.test',
      publicUrl: origin,
    });
  });
});

describe('content build', () => {
  const copy = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-content-'));
    cpSync(join(REPO, 'content/blog'), join(dir, 'blog'), { recursive: true });
    cpSync(join(REPO, 'content/tutorials'), join(dir, 'tutorials'), { recursive: true });
    return dir;
  };
  const build = (dir: string) =>
    spawnSync(process.execPath, [BUILD, '--dir', dir, '--out', join(dir, 'out.json')], {
      cwd: REPO,
      encoding: 'utf8',
    });

  it('builds a copy of the content', () => {
    const dir = copy();
    const res = build(dir);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const out = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as CompiledContent;
    const wix = out.tutorials.find((x) => x.slug === 'wix-radio-broadcaster') as unknown as {
      filePath: string;
      fileName: string;
      extension: string;
      body: string;
    };
    expect(wix.fileName).toBe('wix-radio-broadcaster.md');
    expect(wix.extension).toBe('md');
    expect(wix.body).toContain('<h2 id="step-1-open-the-editor">');
  });

  it('fails on a bad frontmatter, naming the file and the field', () => {
    const dir = copy();
    const file = join(dir, 'tutorials/wix-radio-broadcaster.md');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('difficulty: beginner', 'difficulty: impossible'),
    );
    const res = build(dir);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('wix-radio-broadcaster.md');
    expect(res.stderr).toContain('difficulty');
  });

  it('fails on a post without an author, naming the file', () => {
    const dir = copy();
    const file = join(dir, 'blog/introducing-radio-broadcaster.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/author:\n(  .*\n)+/, ''));
    const res = build(dir);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('introducing-radio-broadcaster.md');
    expect(res.stderr).toContain('author');
  });

  it('escapes raw HTML in the markdown instead of passing it through', () => {
    const dir = copy();
    const file = join(dir, 'tutorials/html-radio-broadcaster.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n<img src=x onerror="alert(1)">\n`);
    expect(build(dir).status).toBe(0);
    const out = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as CompiledContent;
    const html = out.tutorials.find((x) => x.slug === 'html-radio-broadcaster')!.body;
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
  });
});
