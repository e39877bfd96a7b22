/// <reference lib="dom" />
/**
 * The blog, the tutorials and the marketing pages in Debian's Chromium against the real API serving
 * the built app (`npm run build` first): every route renders its content, head tags and structured
 * data; unknown slugs give 'Post not found' / 'Tutorial not found' on the app's not-found screen.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { Collections } from '../../content/content.js';
import type { TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { REPO_ROOT, shown, startWebApp, watchProblems, watchRequests } from '../support/web-app.js';

const content = JSON.parse(
  readFileSync(resolve(REPO_ROOT, 'content/dist/content.json'), 'utf8'),
) as Collections;

describe('content routes in the browser', () => {
  let app: TestApp;
  let browser: Browser;
  /** Page errors and console errors, one list per page opened. */
  const problems: string[][] = [];

  beforeAll(async () => {
    app = await startWebApp({ SUPPORT_EMAIL: 'help@radio.test' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Each open page's requests still pending (watchRequests), for `show`'s failure message. */
  const pending = new WeakMap<Page, () => string[]>();

  async function open(path: string): Promise<Page> {
    const page = await browser.newPage();
    problems.push(watchProblems(page));
    pending.set(page, watchRequests(page));
    await page.goto(`${app.url}${path}`);
    return page;
  }

  /** Waits for test id `testId` on `page`; a failure says what the page was doing. */
  const show = (page: Page, testId: string) => shown(page, testId, pending.get(page));

  const jsonLdTypes = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('script[type="application/ld+json"]')].map(
        (s) => (JSON.parse(s.textContent ?? '{}') as { '@type': string })['@type'],
      ),
    );

  it('/tutorials/ lists every tutorial and links to each', async () => {
    const page = await open('/tutorials/');
    await show(page, 'tutorial-list');
    expect(await page.getByTestId('page-title').textContent()).toBe('Embed your station anywhere');
    for (const t of content.tutorials) {
      const card = page.getByTestId(`content-card-${t.slug}`);
      expect(await card.getAttribute('href')).toBe(t.path);
    }
    expect(await page.title()).toBe('Embed tutorials | Radio Broadcaster');
    expect(await jsonLdTypes(page)).toEqual(['ItemList', 'BreadcrumbList']);
    // In-app navigation to a tutorial.
    await page.getByTestId(`content-card-${content.tutorials[0]!.slug}`).click();
    await show(page, 'tutorial');
    expect(page.url()).toBe(`${app.url}${content.tutorials[0]!.path}`);
    await page.screenshot({ path: screenshotPath('content-tutorial'), fullPage: false });
  });

  it('/blog/ lists both posts, newest first', async () => {
    const page = await open('/blog/');
    await show(page, 'post-list');
    const hrefs = await page
      .locator('[data-testid=post-list] a.content-card')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual(content.blog.map((p) => p.path));
    expect(await page.title()).toBe('Blog | Radio Broadcaster');
    expect(await jsonLdTypes(page)).toEqual(['ItemList', 'BreadcrumbList']);
  });

  it('every tutorial renders its body, steps, snippets with this origin and HowTo data', async () => {
    for (const t of content.tutorials) {
      const page = await open(t.path);
      await show(page, 'tutorial');
      expect(await page.getByTestId('page-title').textContent()).toBe(t.title);
      expect(await page.title()).toBe(t.seo.title);
      expect(await jsonLdTypes(page)).toEqual(['HowTo', 'BreadcrumbList']);
      const body = page.getByTestId('content-body');
      for (const step of t.steps) expect(await page.locator(`#${step.id}`).count()).toBe(1);
      const code = await body.locator('pre code').allTextContents();
      expect(code.join('\n')).toContain(`<script src="${app.url}/player.js" defer></script>`);
      expect(await body.textContent()).not.toContain('{SITE}');
      expect(await body.locator('button.copy').count()).toBe(await body.locator('pre').count());
      const hero = await page
        .locator('img.article-hero')
        .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth);
      expect(hero).toBe(1200);
      await page.close();
    }
  }, 60_000);

  it('every post renders with its author, dates and BlogPosting data', async () => {
    for (const p of content.blog) {
      const page = await open(p.path);
      await show(page, 'post');
      expect(await page.getByTestId('page-title').textContent()).toBe(p.title);
      expect(await page.title()).toBe(p.seo.title);
      expect(await page.getByTestId('post-author').textContent()).toContain(p.author.displayName);
      expect(await jsonLdTypes(page)).toEqual(['BlogPosting', 'BreadcrumbList']);
      expect(await page.locator('time').first().getAttribute('datetime')).toBe(p.publishedAt);
      await page.close();
    }
  });

  it.each([
    ['/tutorials/no-such-guide', 'Tutorial not found'],
    ['/blog/no-such-post', 'Post not found'],
  ])("%s → '%s' on the not-found screen", async (path, message) => {
    const page = await open(path);
    await show(page, 'not-found');
    expect(await page.getByTestId('not-found-message').textContent()).toBe(message);
    expect(await page.locator('[data-testid=not-found] h1').textContent()).toBe(message);
    expect(await page.getByRole('link', { name: 'Start Over' }).getAttribute('href')).toBe('/');
    expect(await page.getByRole('button', { name: 'Go back' }).count()).toBe(1);
    expect(await page.title()).toBe(`${message} | Radio Broadcaster`);
  });

  it("an unknown slug reached inside the app also says 'Tutorial not found'", async () => {
    const page = await open('/tutorials/');
    await show(page, 'tutorial-list');
    await page.evaluate(() => {
      history.pushState({}, '', '/tutorials/nope');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await show(page, 'not-found');
    expect(await page.getByTestId('not-found-message').textContent()).toBe('Tutorial not found');
  });

  it('/embed: the two lines with this origin, attributes, sizes, browsers, measured size', async () => {
    const page = await open('/embed');
    await show(page, 'embed-snippet');
    expect(await page.getByTestId('embed-snippet').textContent()).toBe(
      `<script src="${app.url}/player.js" defer></script>\n` +
        '<radio-player station="username/station-slug" theme="dark" autoplay="false"></radio-player>',
    );
    const browsers = await page.getByTestId('browser-support').textContent();
    for (const b of ['Chrome 90+', 'Firefox 88+', 'Safari 14+', 'Edge 90+', 'Mobile browsers'])
      expect(browsers).toContain(b);
    expect(browsers).toContain('Internet Explorer is not supported.');
    const facts = await page.getByTestId('player-facts').textContent();
    expect(facts).toContain(`About ${content.player.sizeText} gzipped`);
    expect(facts).toContain('No cookies, no tracking');
    const text = (await page.locator('main').textContent()) ?? '';
    for (const s of ['350×300', '400×350', '600×450', '800×600', 'api-base'])
      expect(text).toContain(s);
    expect(await page.getByTestId('support-email').textContent()).toBe('help@radio.test');
  });

  it.each([
    ['/about', 'About Radio Broadcaster'],
    ['/privacy', 'Privacy policy'],
  ])('%s shows the configured support e-mail', async (path, heading) => {
    const page = await open(path);
    await show(page, 'support-email');
    expect(await page.getByTestId('page-title').textContent()).toBe(heading);
    expect(await page.getByTestId('support-email').getAttribute('href')).toBe(
      'mailto:help@radio.test',
    );
  });

  it.each([
    ['/', 'home-title', 'Turn Your Mac Into a Private Radio Station'],
    ['/ios', 'page-title', 'Radio Broadcaster for iOS'],
    ['/tutorial', 'page-title', 'Go live in five steps'],
  ])('%s renders', async (path, testId, heading) => {
    const page = await open(path);
    await page.getByTestId(testId).waitFor();
    expect(await page.getByTestId(testId).textContent()).toBe(heading);
  });

  it('home links every tutorial', async () => {
    const page = await open('/');
    await show(page, 'home-tutorials');
    const hrefs = await page
      .locator('[data-testid=home-tutorials] a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual(content.tutorials.map((t) => t.path));
  });

  it('the blog feed is linked from the pages and parses as XML in the browser', async () => {
    const page = await open('/blog/');
    await show(page, 'post-list');
    const feed = await page
      .locator('link[rel=alternate][type="application/rss+xml"]')
      .getAttribute('href');
    expect(feed).toBe(`${app.url}/blog/rss.xml`);
    const titles = await page.evaluate(async (url) => {
      const xml = await (await fetch(url)).text();
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      if (doc.querySelector('parsererror')) return null;
      return [...doc.querySelectorAll('item > title')].map((t) => t.textContent);
    }, feed!);
    expect(titles?.sort()).toEqual(content.blog.map((p) => p.title).sort());
  });

  it('logs no page errors', () => {
    expect(problems.flat()).toEqual([]);
  });
});
