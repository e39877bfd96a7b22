/**
 * The OpenAPI page renders in Chromium under its strict Content-Security-Policy (no violation, no
 * error) and lists the API's calls. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { waitUntil } from '../support/wait.js';
import { watchProblems } from '../support/web-app.js';

describe('/api/docs in the browser', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    [app, browser] = await Promise.all([
      startTestApp({ env: { NODE_ENV: 'production', API_DOCS: 'true', SFU_SHARDS: '0' } }),
      launchChromium(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the API reference with its CSP and no console errors', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const res = await page.goto(`${app.url}/api/docs`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    // Swagger UI renders the whole reference in the page: seconds on a loaded machine.
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 45_000 });
    // Swagger UI renders the tag sections near the viewport only: scroll down, as a reader
    // would, until the join call (in the sixth section) is on the page.
    await page.mouse.move(640, 400);
    await waitUntil(
      async () => {
        if ((await page.getByText('/api/joinStationAsReceiver').count()) > 0) return true;
        await page.mouse.wheel(0, 400);
        return false;
      },
      60_000,
      'the join call in the reference',
    );
    expect(problems).toEqual([]);
  }, 90_000);
});
