/**
 * Forms and failed requests as people meet them, in Debian's Chromium against the real API: problems
 * show next to their field in plain words (checked before sending, and from the server's 400/409), a
 * refused sign-in shows one readable message, and no 4xx answer is ever asked again (requests are
 * counted at the server). Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { holdsFor } from '../support/wait.js';
import { createStation, startWebApp, watchProblems } from '../support/web-app.js';

describe('forms: field errors in plain words, no retry on 4xx', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let user: TestUser;
  let problems: string[] = [];
  /** Requests the server received, as 'METHOD /path'. */
  const received: string[] = [];
  const count = (line: string) => received.filter((r) => r === line).length;

  beforeAll(async () => {
    app = await startWebApp();
    app.app.getHttpServer().on('request', (req: IncomingMessage) => {
      received.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    });
    browser = await launchChromium();
    user = await signUp(app.url);
    await createStation(app.url, user, { name: 'Taken', slug: 'taken' });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const fieldError = (name: string) => page.getByTestId(`field-error-${name}`);

  it('a refused sign-in shows one plain message and reaches the server once', async () => {
    await page.goto(`${app.url}/signin`);
    await page.getByTestId('field-email').fill(user.email);
    await page.getByTestId('field-password').fill('not the password');
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('form-error').waitFor();
    expect(await page.getByTestId('form-error').textContent()).toBe('Invalid email or password');
    expect(await page.getByTestId('form-error').getAttribute('role')).toBe('alert');
    // Long enough for a retry to have happened: none does.
    await holdsFor(() => count('POST /api/auth/sign-in/email') === 1, 1500, 'one sign-in request');
  });

  it('checks fields before sending: the problem sits next to its field, focused', async () => {
    await page.getByTestId('field-email').fill('not-an-address');
    await page.getByTestId('field-password').fill('');
    await page.getByTestId('signin-submit').click();
    await fieldError('email').waitFor();
    expect(await fieldError('email').textContent()).toBe(
      'Enter an e-mail address, like name@example.com.',
    );
    expect(await fieldError('password').textContent()).toBe('This is required.');
    expect(await page.getByTestId('field-email').getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await page.getByTestId('field-email').getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toContain(
      'Enter an e-mail address',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    expect(count('POST /api/auth/sign-in/email')).toBe(1);
    // Typing clears that field's problem only.
    await page.getByTestId('field-email').fill(user.email);
    expect(await fieldError('email').count()).toBe(0);
    expect(await fieldError('password').count()).toBe(1);
  });

  it('signs in; a slug the server refuses shows next to the slug field, asked once', async () => {
    await page.getByTestId('field-password').fill(user.password);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('studio').waitFor();
    await page.getByTestId('studio-new').click();

    const before = count('POST /api/stations');
    await page.getByTestId('field-name').fill('Second');
    await page.getByTestId('field-slug').fill('Not A Slug');
    await page.getByTestId('create-station').click();
    await fieldError('slug').waitFor();
    expect(await fieldError('slug').textContent()).toBe(
      'Use lowercase letters, digits and single dashes, like night-owls.',
    );
    expect(count('POST /api/stations')).toBe(before);

    await page.getByTestId('field-slug').fill('taken');
    await page.getByTestId('create-station').click();
    await fieldError('slug').waitFor();
    expect(await fieldError('slug').textContent()).toBe(
      'You already have a station at this address. Choose another slug.',
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('slug');
    expect(await page.getByTestId('form-error').isVisible()).toBe(false);
    expect(await page.locator('[data-sonner-toast]').count()).toBe(0);
    await holdsFor(() => count('POST /api/stations') === before + 1, 1500, 'one station request');
  });

  it('a query answered 404 is not asked again', async () => {
    const id = '3f1c2a4e-1111-4222-8333-444455556666';
    await page.goto(`${app.url}/station/${id}`);
    await page.getByTestId('not-found').waitFor();
    // React Query's retries would come within 2.5 s: none does.
    await holdsFor(
      () => count(`GET /api/stations/${id}`) === 1,
      2500,
      'one request for the station',
    );
    expect(problems).toEqual([]);
  });
});
