/**
 * `/settings/domains` in Debian's Chromium against the real API serving the built app: it requires a
 * session, then lists, adds (showing the server's validation message for a bad entry) and removes
 * allowed domains, through cookies and the CSRF origin check. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { startWebApp, until, watchProblems } from '../support/web-app.js';

describe('allowed domains page', () => {
  let app: TestApp;
  let browser: Browser;
  let user: TestUser;
  let page: Page;
  let problems: string[];

  const listed = () =>
    page
      .getByTestId('domain-item')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-domain')));
  const serverList = async () => {
    const res = await fetch(`${app.url}/api/me/allowed-domains`, { headers: user.auth });
    const body = (await res.json()) as { domain: string }[] | { domains: { domain: string }[] };
    return (Array.isArray(body) ? body : body.domains).map((d) => d.domain);
  };

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium();
    user = await signUp(app.url);
    page = await browser.newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("asks for sign-in first: 'Authentication required', then back to the page after signing in", async () => {
    await page.goto(`${app.url}/settings/domains`);
    await page.getByTestId('auth-required').waitFor();
    expect(await page.locator('[data-testid=auth-required] h1').textContent()).toBe(
      'Authentication required',
    );
    expect(await page.getByTestId('domains-page').count()).toBe(0);

    await page.getByTestId('auth-required').getByRole('link', { name: 'Sign in' }).click();
    await page.getByTestId('signin-submit').waitFor();
    await page.getByTestId('field-email').fill(user.email);
    await page.getByTestId('field-password').fill(user.password);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('domains-page').waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/domains');
    expect(await page.getByTestId('domains-empty').count()).toBe(1);
    expect(await page.title()).toBe('Allowed domains | Radio Broadcaster');
  });

  it("shows the server's validation message for a bad entry and adds nothing", async () => {
    await page.getByTestId('field-domain').fill('not a domain');
    await page.getByTestId('domain-add').click();
    const error = page.getByTestId('field-error-domain');
    await error.waitFor();
    expect(await error.textContent()).toContain('A domain cannot contain spaces');
    expect(await page.getByTestId('field-domain').getAttribute('aria-invalid')).toBe('true');

    await page.getByTestId('field-domain').fill('localhost:99999999x');
    await page.getByTestId('domain-add').click();
    await page.getByTestId('field-error-domain').waitFor();
    expect(await page.getByTestId('field-error-domain').textContent()).toMatch(
      /not a valid hostname/,
    );

    expect(await listed()).toEqual([]);
    expect(await serverList()).toEqual([]);
  });

  it('adds domains (normalized by the server) and lists them', async () => {
    await page.getByTestId('field-domain').fill('HTTPS://Www.Example.COM/some/page');
    expect(await page.getByTestId('field-error-domain').count()).toBe(0); // typing clears the error
    await page.getByTestId('domain-add').click();
    await page.waitForSelector('[data-testid=domain-item][data-domain="www.example.com"]');
    expect(await page.getByTestId('field-domain').inputValue()).toBe('');
    await page.locator('[data-sonner-toast]', { hasText: 'Domain added' }).first().waitFor();

    await page.getByTestId('field-domain').fill('*.radio.test');
    await page.getByTestId('field-domain').press('Enter');
    await page.waitForSelector('[data-testid=domain-item][data-domain="*.radio.test"]');
    expect((await listed()).sort()).toEqual(['*.radio.test', 'www.example.com']);
    expect((await serverList()).sort()).toEqual(['*.radio.test', 'www.example.com']);

    // A reload shows what the server kept.
    await page.reload();
    await page.getByTestId('domain-list').waitFor();
    expect((await listed()).sort()).toEqual(['*.radio.test', 'www.example.com']);
  });

  it('removes a domain', async () => {
    await page
      .locator('[data-testid=domain-item][data-domain="www.example.com"]')
      .getByTestId('domain-remove')
      .click();
    await page.waitForSelector('[data-testid=domain-item][data-domain="www.example.com"]', {
      state: 'detached',
    });
    await page.locator('[data-sonner-toast]', { hasText: 'Domain removed' }).first().waitFor();
    expect(await listed()).toEqual(['*.radio.test']);
    await until('the server to drop it', serverList, (l) => l.length === 1);
    expect(await serverList()).toEqual(['*.radio.test']);

    await page.getByRole('button', { name: 'Remove *.radio.test' }).click();
    await page.getByTestId('domains-empty').waitFor();
    expect(await serverList()).toEqual([]);
    expect(problems).toEqual([]);
  });
});
