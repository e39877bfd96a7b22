/**
 * Station identity in Debian's Chromium against the real API: cover art and the broadcaster's picture
 * uploaded in the studio (refusals in plain words next to the picture), then shown on the station
 * page with its schedule, copy-link and embed code; the page's social preview. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { createStation, getStation, startWebApp, watchProblems } from '../support/web-app.js';

function picture(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#2a6"/><circle cx="50%" cy="50%" r="30%" fill="#fd0"/></svg>`;
  return sharp(Buffer.from(svg))[format]().toBuffer();
}

describe('station identity: cover art, picture, a richer station page', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: TestUser;
  let stationId: string;
  let problems: string[] = [];
  const uploads: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    app.app.getHttpServer().on('request', (req: { method?: string; url?: string }) => {
      if (req.method === 'PUT') uploads.push(req.url ?? '');
    });
    browser = await launchChromium();
    user = await signUp(app.url);
    const { station } = await createStation(app.url, user, {
      name: 'Morning Glory',
      slug: 'morning-glory',
      description: 'Coffee and soul.',
    });
    stationId = station.id;
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(`${app.url}/signin`);
    await page.getByTestId('field-email').fill(user.email);
    await page.getByTestId('field-password').fill(user.password);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('studio').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('refuses unusable files next to the picture, in plain words', async () => {
    const input = page.getByTestId('cover-input');
    const error = page.getByTestId('cover-error');
    // Checked before sending: nothing reaches the server.
    await input.setInputFiles({
      name: 'notes.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF'),
    });
    await error.waitFor();
    expect(await error.textContent()).toBe('Use a JPEG, PNG, WebP, GIF or AVIF image.');
    expect(uploads).toEqual([]);
    // Checked by the server.
    await input.setInputFiles({
      name: 'tiny.png',
      mimeType: 'image/png',
      buffer: await picture(120, 100, 'png'),
    });
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=cover-error]')?.textContent?.includes('120×100'),
    );
    expect(await error.textContent()).toBe(
      'This image is 120×100 pixels; use one at least 300×300.',
    );
    await input.setInputFiles({
      name: 'fake.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not really a picture'),
    });
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=cover-error]')
        ?.textContent?.startsWith('This file is not an image'),
    );
    expect(uploads.length).toBe(2);
    expect(await page.locator('[data-sonner-toast]', { hasText: 'Invalid' }).count()).toBe(0);
  });

  it('uploads cover art and shows it resized in the studio', async () => {
    await page.getByTestId('cover-input').setInputFiles({
      name: 'cover.jpg',
      mimeType: 'image/jpeg',
      buffer: await picture(1200, 900, 'jpeg'),
    });
    const preview = page.getByTestId('cover-preview');
    await preview.waitFor();
    await page.waitForFunction(
      () =>
        (document.querySelector('[data-testid=cover-preview]') as HTMLImageElement)
          ?.naturalWidth === 800,
    );
    expect(await page.getByTestId('cover-error').isVisible()).toBe(false);
    const station = await getStation(app.url, stationId);
    expect(await preview.getAttribute('src')).toBe(station.coverUrl);
    const res = await fetch(`${app.url}${station.coverUrl}`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    await page.getByTestId('avatar-input').setInputFiles({
      name: 'me.png',
      mimeType: 'image/png',
      buffer: await picture(400, 400, 'png'),
    });
    await page.getByTestId('avatar-preview').waitFor();

    await page.getByTestId('field-schedule').fill('Weekdays 7:00–9:00\nSaturdays 8:00–11:00');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('[data-sonner-toast]', { hasText: 'Station saved' }).waitFor();
  });

  it('shows artwork, picture, schedule, share and embed on the station page', async () => {
    await page.goto(`${app.url}/${user.username}/morning-glory`);
    const cover = page.getByTestId('station-cover');
    await cover.waitFor();
    await page.waitForFunction(
      () =>
        (document.querySelector('[data-testid=station-cover]') as HTMLImageElement)
          ?.naturalWidth === 800,
    );
    expect(await page.getByTestId('avatar').first().getAttribute('src')).toMatch(/^\/images\//);
    expect(await page.getByTestId('station-schedule').textContent()).toBe(
      'Weekdays 7:00–9:00\nSaturdays 8:00–11:00',
    );
    expect(await page.getByTestId('station-description').textContent()).toBe('Coffee and soul.');
    const url = `${app.url}/${user.username}/morning-glory`;
    expect(await page.getByTestId('share-url').textContent()).toBe(url);
    await page.getByTestId('share-copy-link').click();
    await page.getByTestId('share-copy-link').and(page.locator('[data-state=copied]')).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    expect(await page.getByTestId('embed-snippet').textContent()).toContain(
      `<radio-player station="${user.username}/morning-glory"`,
    );
    // Link previews: the page's social image is the station's own.
    const html = await (await fetch(url)).text();
    expect(html).toMatch(
      new RegExp(
        `<meta property="og:image" content="${app.url}/og/stations/${stationId}\\.png\\?v=[\\w-]+" />`,
      ),
    );
    expect(problems).toEqual([]);
  });

  it('lays the station page out on a phone without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('station-cover').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
  });
});
