/// <reference lib="dom" />
/**
 * Every tutorial's embed snippets, exactly as the content has them, pasted into a static page on
 * another origin (a tiny node:http server on another loopback port) with only {SITE} and the station
 * filled in: each plays a live station that the CLI publishes (`broadcast --tone 440`). The CDN form
 * is served the same built player.js through a route, as the public CDN would serve the package.
 * Needs `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { Collections } from '../../content/content.js';
import { signUp, type TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium, toneProminence } from '../support/browser.js';
import {
  type CliBroadcast,
  REPO_ROOT,
  cliBroadcastTone,
  createStation,
  startWebApp,
  until,
  watchProblems,
} from '../support/web-app.js';

const TONE_HZ = 440;
const CDN_SCRIPT = 'https://unpkg.com/@radiobroadcaster/player/dist/player.js';
const content = JSON.parse(
  readFileSync(resolve(REPO_ROOT, 'content/dist/content.json'), 'utf8'),
) as Collections;

const cases = content.tutorials.flatMap((t) =>
  t.snippets.map((snippet, i) => ({ name: `${t.slug} #${i + 1}`, snippet })),
);

describe('tutorial snippets play a live station from another origin', () => {
  let app: TestApp;
  let browser: Browser;
  let cli: CliBroadcast | undefined;
  let site: Server;
  let siteUrl: string;
  let live: string;
  let other: string;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    app = await startWebApp({ PUBLISHER_GRACE_MS: '1000' });
    const owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Snippet FM', slug: 'snippet-fm' });
    await createStation(app.url, owner, { name: 'Second Station', slug: 'second-station' });
    live = `${owner.username}/snippet-fm`;
    other = `${owner.username}/second-station`;
    cli = await cliBroadcastTone({
      server: app.url,
      station: live,
      token: created.streamToken.token,
      hz: TONE_HZ,
    });
    site = createServer((req, res) => {
      const html = pages.get(req.url ?? '');
      res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(html ?? 'not found');
    });
    await new Promise<void>((ok) => site.listen(0, '127.0.0.1', ok));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await new Promise((ok) => site?.close(ok));
    await app?.close();
  });

  it('finds snippets in every tutorial', () => {
    expect(content.tutorials.length).toBeGreaterThanOrEqual(6);
    for (const t of content.tutorials)
      expect([t.slug, t.snippets.length > 0]).toEqual([t.slug, true]);
  });

  it.each(cases)(
    '$name plays the live station',
    async ({ name, snippet }) => {
      // What a reader does: paste the snippet and put their station in. Nothing else changes.
      const html = snippet
        .replaceAll('{SITE}', app.url)
        .replaceAll('username/station-slug', live)
        .replaceAll('username/another-station', other);
      expect(html).toContain(`station="${live}"`);
      const path = `/${name.replace(/\W+/g, '-')}.html`;
      pages.set(
        path,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body>\n${html}\n</body></html>`,
      );

      const page = await browser.newPage();
      const problems = watchProblems(page);
      if (html.includes(CDN_SCRIPT)) {
        const bundle = readFileSync(resolve(REPO_ROOT, 'libs/player/dist/player.js'), 'utf8');
        await page.route(CDN_SCRIPT, (route) =>
          route.fulfill({
            status: 200,
            contentType: 'text/javascript',
            headers: { 'Access-Control-Allow-Origin': '*' },
            body: bundle,
          }),
        );
      }
      try {
        await page.goto(`${siteUrl}${path}`);
        const player = page.locator('radio-player').first();
        await until(
          'the player to see the station live',
          () => player.evaluate((el) => (el as HTMLElement & { state: string }).state),
          (s) => s === 'idle',
          15_000,
        );
        const box = await player.boundingBox();
        expect(box!.height).toBeGreaterThanOrEqual(300);
        await player.locator('button.play').click();
        await until(
          'the player to play',
          () => player.evaluate((el) => (el as HTMLElement & { state: string }).state),
          (s) => s === 'live',
          15_000,
        );
        const atTone = await toneProminence(
          page,
          { hostSelector: 'radio-player', audioSelector: 'audio' },
          TONE_HZ,
          3000,
          20,
        );
        expect(atTone).toBeGreaterThanOrEqual(20);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
    45_000,
  );
});
