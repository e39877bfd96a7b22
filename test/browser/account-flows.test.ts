/**
 * Account flows in Chromium with the real mail captured by a local SMTP sink: "Start broadcasting"
 * opens sign-up, the "check your inbox" notice, resend (and its limit), the verified and the
 * expired-link pages, forgot/reset password (single use, every session ends), change password and
 * e-mail in settings, and deleting the account with confirmation. Saves screenshots of the account
 * pages at desktop and mobile sizes. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { linkIn, SmtpSink } from '../support/smtp-sink.js';
import { startWebApp, watchProblems } from '../support/web-app.js';

const EMAIL = 'frequency@example.com';
const PASSWORD = 'copper kettle midnight';
const NEW_PASSWORD = 'violet harbor lantern';

describe('account flows with real mail', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    sink = new SmtpSink();
    await sink.start();
    app = await startWebApp({ SMTP_URL: sink.url, RATE_LIMIT_MAIL_PER_HOUR: '2' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  /** Desktop and mobile screenshots of what the page shows now. */
  async function shoot(name: string, fullPage = true): Promise<void> {
    await page.screenshot({ path: screenshotPath(`${name}-1280x800`) });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath(`${name}-390x844`), fullPage });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  /** Failed calls the flows make on purpose (expired links, the resend limit, a weak password). */
  const expected = (p: string) => !/status of (400|429)/.test(p);

  it('"Start broadcasting" opens sign-up; the new account sees where the mail went', async () => {
    await page.goto(`${app.url}/`);
    await page.getByRole('link', { name: 'Start broadcasting' }).click();
    await page.waitForURL((u) => u.pathname === '/signin');
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Create your account');
    await page.getByTestId('field-name').fill('Frequency');
    await page.getByTestId('field-username').fill('frequency');
    await page.getByTestId('field-email').fill(EMAIL);
    await page.getByTestId('field-password').fill(PASSWORD);
    await page.getByTestId('signup-submit').click();
    await page.getByTestId('check-inbox').waitFor();
    expect(await page.getByTestId('inbox-email').textContent()).toBe(EMAIL);
    const mail = await sink.nth(EMAIL, 1);
    expect(mail.subject).toBe('Confirm your email address');
    expect(new URL(linkIn(mail)).pathname).toBe('/verify-email');
    await shoot('account-check-inbox');
  });

  it('resends on request, says so, and stops at the limit with a plain message', async () => {
    await page.getByTestId('resend-verification').click();
    await page.getByTestId('resend-status').filter({ hasText: 'We sent a new link' }).waitFor();
    await sink.nth(EMAIL, 2);
    await page.getByTestId('resend-verification').click();
    await sink.nth(EMAIL, 3);
    await page.getByTestId('resend-verification').click();
    await page
      .getByTestId('resend-status')
      .filter({ hasText: 'You asked for several links' })
      .waitFor();
    expect(await page.getByTestId('resend-status').textContent()).toMatch(
      /try again in \d+ seconds/,
    );
    expect(sink.mails.filter((m) => m.to === EMAIL)).toHaveLength(3);
  });

  it('shows an old link as expired, confirms with the newest, and refuses it the second time', async () => {
    const first = linkIn(await sink.nth(EMAIL, 1));
    const newest = linkIn(await sink.nth(EMAIL, 3));
    await page.goto(first);
    await page.getByTestId('link-expired').waitFor();
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await shoot('account-link-expired');
    await page.goto(newest);
    await page.getByTestId('email-verified').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Your email is confirmed');
    // Focus moves to the result, so screen readers announce it.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await shoot('account-email-verified');
    await page.goto(newest);
    await page.getByTestId('link-expired').waitFor();
  });

  it('resets a forgotten password by mail: single use, and every session ends', async () => {
    // A second device stays signed in until the reset.
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${app.url}/signin`);
    await otherPage.getByTestId('field-email').fill(EMAIL);
    await otherPage.getByTestId('field-password').fill(PASSWORD);
    await otherPage.getByTestId('signin-submit').click();
    await otherPage.waitForURL((u) => u.pathname === '/studio');

    await context.clearCookies();
    await page.goto(`${app.url}/signin`);
    await page.getByTestId('forgot-password-link').click();
    await page.waitForURL((u) => u.pathname === '/forgot-password');
    await shoot('account-forgot-password');
    await page.getByTestId('field-email').fill(EMAIL);
    await page.getByTestId('reset-request-submit').click();
    await page.getByTestId('reset-requested').waitFor();
    const mail = await sink.nth(EMAIL, 4);
    expect(mail.subject).toBe('Reset your password');
    const link = linkIn(mail);
    expect(new URL(link).pathname).toBe('/reset-password');

    await page.goto(link);
    await page.getByTestId('field-newPassword').fill('password123');
    await page.getByTestId('reset-submit').click();
    await page.getByTestId('field-error-newPassword').waitFor();
    expect(await page.getByTestId('field-error-newPassword').textContent()).toMatch(
      /commonly used password/,
    );
    await shoot('account-reset-password');
    await page.getByTestId('field-newPassword').fill(NEW_PASSWORD);
    await page.getByTestId('reset-submit').click();
    await page.getByTestId('password-reset').waitFor();

    const session = await otherPage.evaluate(async () =>
      (await fetch('/api/auth/get-session')).json(),
    );
    expect(session).toBeNull();
    await other.close();

    await page.goto(link);
    await page.getByTestId('field-newPassword').fill('another fine passphrase');
    await page.getByTestId('reset-submit').click();
    await page.getByTestId('reset-link-expired').waitFor();

    await page.goto(`${app.url}/signin`);
    await page.getByTestId('field-email').fill(EMAIL);
    await page.getByTestId('field-password').fill(PASSWORD);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('form-error').filter({ hasText: /.+/ }).waitFor();
    await page.getByTestId('field-password').fill(NEW_PASSWORD);
    await page.getByTestId('signin-submit').click();
    await page.waitForURL((u) => u.pathname === '/studio');
  });

  it('changes the password and the e-mail address in settings', async () => {
    await page.goto(`${app.url}/settings/account`);
    await page.getByTestId('account-page').waitFor();
    expect(await page.getByTestId('email-status').textContent()).toBe('Confirmed');
    await shoot('account-settings');

    await page.getByTestId('field-currentPassword').fill('not my password');
    await page.getByTestId('field-newPassword').fill(PASSWORD);
    await page.getByTestId('change-password-submit').click();
    await page.getByTestId('field-error-currentPassword').waitFor();
    await page.getByTestId('field-currentPassword').fill(NEW_PASSWORD);
    await page.getByTestId('change-password-submit').click();
    await page
      .getByTestId('change-password-status')
      .filter({ hasText: 'Your password is changed.' })
      .waitFor();

    const next = 'frequency.new@example.com';
    await page.getByTestId('field-newEmail').fill(next);
    await page.getByTestId('change-email-submit').click();
    await page.getByTestId('change-email-status').filter({ hasText: next }).waitFor();
    const mail = await sink.nth(next, 1);
    expect(mail.subject).toBe('Confirm your new email address');
    await page.goto(linkIn(mail));
    await page.getByTestId('email-verified').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Your new address is confirmed');
    await page.goto(`${app.url}/settings/account`);
    expect(await page.getByTestId('account-email').textContent()).toBe(next);
  });

  it('deletes the account only after confirming with the password', async () => {
    await page.getByTestId('delete-account').click();
    const dialog = page.getByTestId('delete-dialog');
    await dialog.waitFor();
    await page.getByTestId('delete-password').fill('wrong password');
    await page.getByTestId('delete-dialog-confirm').click();
    await dialog.getByRole('alert').waitFor();
    await page.getByTestId('delete-dialog-cancel').click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'delete-account',
    );
    await page.getByTestId('delete-account').click();
    await page.getByTestId('delete-password').fill(PASSWORD);
    await shoot('account-delete-dialog', false);
    await page.getByTestId('delete-dialog-confirm').click();
    await page.waitForURL((u) => u.pathname === '/');
    const session = await page.evaluate(async () => (await fetch('/api/auth/get-session')).json());
    expect(session).toBeNull();
    expect(problems.filter(expected)).toEqual([]);
  });
});
