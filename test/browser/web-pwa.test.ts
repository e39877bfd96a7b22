/**
 * The installable app in Debian's Chromium against the built app: the web app manifest is served and
 * valid (Chromium's own parser reports nothing; name, start URL, standalone display, 192 and 512 px
 * PNG icons and a maskable one, all served), the one service worker (/sw.js, which imports
 * /sw-push.js for Web Push) takes control, Chromium's installability check
 * (`Page.getInstallabilityErrors`) returns no error, and offline a navigation opens the app's cached
 * shell instead of the browser's error page. Needs `npm run build`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';
import type { TestApp } from '../../apps/api/testing/test-app.js';
import {
  CHROMIUM,
  launchChromium,
  screenshotPath,
  settled,
  withBrowserTimeouts,
} from '../support/browser.js';
import { startWebApp } from '../support/web-app.js';

interface Manifest {
  id: string;
  name: string;
  short_name: string;
  start_url: string;
  display: string;
  icons: { src: string; sizes: string; type: string; purpose?: string }[];
}

describe('the installable app', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startWebApp(), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('serves a valid manifest whose icons exist', async () => {
    const res = await fetch(`${app.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as Manifest;
    expect(manifest).toMatchObject({
      name: 'Radio Broadcaster',
      start_url: '/studio',
      display: 'standalone',
    });
    for (const size of ['192x192', '512x512'])
      expect(manifest.icons.some((i) => i.sizes === size && i.type === 'image/png')).toBe(true);
    expect(manifest.icons.some((i) => i.purpose === 'maskable')).toBe(true);
    for (const icon of manifest.icons) {
      const r = await fetch(`${app.url}${icon.src}`);
      expect([icon.src, r.status, r.headers.get('content-type')]).toEqual([
        icon.src,
        200,
        expect.stringContaining(icon.type),
      ]);
      if (icon.type === 'image/png') {
        // The PNG's own width and height (IHDR) match what the manifest says.
        const png = Buffer.from(await r.arrayBuffer());
        expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
      }
    }
    const sw = await fetch(`${app.url}/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get('content-type')).toContain('javascript');
    expect(await sw.text()).toContain("importScripts('/sw-push.js')");
    expect((await fetch(`${app.url}/sw-push.js`)).status).toBe(200);
  });

  it('Chromium finds it installable, and offline the installed app opens its shell', async () => {
    // A real profile: Chromium never offers to install from an incognito one (playwright's contexts).
    const profile = mkdtempSync(join(tmpdir(), 'rb-chromium-pwa-'));
    const context = withBrowserTimeouts(
      await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1280, height: 800 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
    );
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${app.url}/`);
    // The service worker is installed (shell cached) and controls the page.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${app.url}/sw.js`,
    );

    const cdp = await context.newCDPSession(page);
    const manifest = (await cdp.send('Page.getAppManifest')) as {
      url: string;
      errors: { message: string }[];
    };
    expect(manifest.url).toBe(`${app.url}/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors).toEqual([]);

    await context.setOffline(true);
    await page.goto(`${app.url}/studio`);
    // The app itself from the cache, not Chromium's "No internet" page, saying it is offline.
    const notice = page.getByTestId('offline-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('You are offline.');
    await settled(page);
    await page.screenshot({ path: screenshotPath('pwa-offline-shell-1280x800') });
    // Back online, the page carries on by itself: the studio asks to sign in.
    await context.setOffline(false);
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByTestId('signin-submit').waitFor({ timeout: 30_000 });
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }, 90_000);
});
