/**
 * The site opened at http://127.0.0.1:PORT while PUBLIC_URL names http://localhost:PORT (what the
 * start-up log prints next to each other): sign-up and sign-in work from the real pages in
 * Chromium, and each form posts once. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { freeLoopbackPort, startTestApp, type TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { watchProblems } from '../support/web-app.js';

describe('accounts on a loopback address PUBLIC_URL does not name', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  const posts: string[] = [];

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    app = await startTestApp({
      port,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, SFU_SHARDS: '0' },
    });
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs up from the sign-up form with one request and goes on to the studio', async () => {
    const problems = watchProblems(page);
    await page.goto(`${base}/signin?mode=signup`);
    await page.getByTestId('field-name').fill('Loop Back');
    await page.getByTestId('field-username').fill('loopback');
    await page.getByTestId('field-email').fill('loopback@example.com');
    await page.getByTestId('field-password').fill('a fine long passphrase');
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('check-inbox').waitFor();
    await page.getByTestId('continue').click();
    await page.waitForURL(`${base}/studio`);
    expect(posts.filter((p) => p === '/api/auth/sign-up/email')).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('signs out and back in from the sign-in form with one request', async () => {
    await page.context().clearCookies();
    await page.goto(`${base}/signin`);
    await page.getByTestId('field-email').fill('loopback@example.com');
    await page.getByTestId('field-password').fill('a fine long passphrase');
    await page.getByTestId('signin-submit').click();
    await page.waitForURL(`${base}/studio`);
    expect(posts.filter((p) => p === '/api/auth/sign-in/email')).toHaveLength(1);
  });
});
