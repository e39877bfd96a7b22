/**
 * Accessibility of every route, checked with axe-core in Debian's Chromium at desktop (1280×800) and
 * phone (390×844) sizes: no serious or critical violation, signed out, signed in and while live.
 * Keyboard and screen-reader use of the studio and the player: status changes in live regions,
 * focus back on the opener after a dialog, play from the keyboard. Saves the screenshots kept in
 * docs/screenshots (home, station page, studio while live, tutorial index, account pages).
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { seriousViolations, type AxeFinding } from '../support/axe.js';
import { launchChromium, screenshotPath, settled } from '../support/browser.js';
import { createStation, setNowPlaying, startWebApp } from '../support/web-app.js';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SIZES = [DESKTOP, PHONE] as const;

describe('accessibility: axe-core on every route, keyboard and screen readers', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium({ fakeMedia: true });
    owner = await signUp(app.url);
    const { station } = await createStation(app.url, owner, {
      name: 'Night Owl Radio',
      slug: 'night-owl',
      description: 'Jazz after midnight, hosted live from a small studio by the sea.',
    });
    stationId = station.id;
    await setNowPlaying(app.url, owner, { stationId, track: 'Round Midnight', artist: 'Monk' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  }

  /** Opens `path` and waits for the route to settle (its main landmark, no pending indicator). */
  async function visit(page: Page, path: string, ready = 'main'): Promise<void> {
    await page.goto(`${app.url}${path}`);
    await page.locator(ready).first().waitFor();
    await page.waitForFunction(() => !document.querySelector('[data-testid=pending]'));
    // Fonts loaded and laid out.
    await settled(page);
  }

  /** axe at both sizes; the findings keyed by route and size, so a failure names them. */
  async function audit(
    page: Page,
    path: string,
    found: Record<string, AxeFinding[]>,
    opts: { ready?: string; shot?: string } = {},
  ): Promise<void> {
    // loaded once, at the first size; the page then lays itself out at the next as a phone turned
    // or a window resized does (half the page loads of loading it again at each size)
    for (const [i, size] of SIZES.entries()) {
      await page.setViewportSize(size);
      if (i === 0) await visit(page, path, opts.ready);
      else await settled(page);
      const v = await seriousViolations(page);
      if (v.length) found[`${path} @${size.width}`] = v;
      if (opts.shot)
        await page.screenshot({
          path: screenshotPath(`${opts.shot}-${size.width}x${size.height}`),
        });
    }
  }

  it('signed out: every public route has no serious or critical violation', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await newPage(context);
    const found: Record<string, AxeFinding[]> = {};
    const routes: [string, { ready?: string; shot?: string }][] = [
      ['/', { ready: '[data-testid=home-title]', shot: 'home' }],
      ['/about', {}],
      ['/embed', { ready: '[data-testid=embed-snippet]' }],
      ['/ios', {}],
      ['/privacy', {}],
      ['/tutorial', {}],
      ['/tutorials/', { ready: '[data-testid=tutorial-list]', shot: 'tutorials-index' }],
      ['/tutorials/wix-radio-broadcaster', {}],
      ['/blog/', {}],
      ['/blog/introducing-radio-broadcaster', {}],
      ['/signin', { ready: 'form', shot: 'account-signin' }],
      ['/signin?mode=signup', { ready: 'form', shot: 'account-signup' }],
      ['/forgot-password', { ready: 'form' }],
      ['/reset-password?token=not-a-real-token', {}],
      ['/verify-email?token=not-a-real-token', {}],
      [`/${owner.username}/`, { ready: '[data-testid=profile]' }],
      [`/${owner.username}/night-owl`, { ready: '[data-testid=station]', shot: 'station' }],
      [`/station/${stationId}`, { ready: '[data-testid=station]' }],
      [`/embed/${owner.username}/night-owl`, { ready: 'radio-player' }],
      ['/radiobroadcaster/demo', { ready: '[data-testid=station]' }],
      ['/settings/domains', {}],
      ['/this/route/does/not/exist', { ready: '[data-testid=not-found]' }],
      [`/${owner.username}/no-such-station`, { ready: '[data-testid=not-found]' }],
    ];
    for (const [path, opts] of routes) await audit(page, path, found, opts);
    expect(found).toEqual({});
    await context.close();
  }, 300_000);

  it('the embed page at 350×300: no serious or critical violation; screenshot', async () => {
    const context = await browser.newContext({ viewport: { width: 350, height: 300 } });
    const page = await newPage(context);
    for (const theme of ['dark', 'light']) {
      await visit(page, `/embed/${owner.username}/night-owl?theme=${theme}`, 'radio-player');
      await page.waitForFunction(
        () =>
          document.querySelector('radio-player')?.shadowRoot?.querySelector('.track')
            ?.textContent === 'Round Midnight',
      );
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`embed-${theme}-350x300`) });
    }
    await context.close();
  });

  let studio: Page;
  let studioContext: BrowserContext;

  it('signed in: studio, settings, domains, stats and webhooks have no serious or critical violation', async () => {
    studioContext = await browser.newContext({ viewport: DESKTOP });
    studio = await newPage(studioContext);
    await visit(studio, '/signin', 'form');
    await studio.getByTestId('field-email').fill(owner.email);
    await studio.getByTestId('field-password').fill(owner.password);
    await studio.getByTestId('signin-submit').click();
    await studio.getByTestId('studio').waitFor();
    const found: Record<string, AxeFinding[]> = {};
    const routes: [string, { ready?: string; shot?: string }][] = [
      [`/studio?station=${stationId}`, { ready: '[data-testid=broadcast]' }],
      ['/settings/account', { ready: 'form', shot: 'account-settings' }],
      ['/settings/domains', { ready: 'form' }],
      [`/studio/${stationId}/stats`, { ready: '[data-testid=stats-page]' }],
      [`/studio/${stationId}/webhooks`, { ready: 'form' }],
    ];
    for (const [path, opts] of routes) await audit(studio, path, found, opts);
    expect(found).toEqual({});
  }, 180_000);

  it('live: the studio says what happens in live regions and stays clean; a listener plays from the keyboard', async () => {
    await studio.setViewportSize(DESKTOP);
    await visit(studio, `/studio?station=${stationId}`, '[data-testid=broadcast]');
    const state = studio.getByTestId('broadcast-state');
    expect(await state.getAttribute('role')).toBe('status');
    await studio.getByTestId('source-microphone').check();
    await studio.getByTestId('go-live').focus();
    await studio.keyboard.press('Enter');
    await studio.waitForSelector('[data-testid=broadcast-state][data-state=live]', {
      timeout: 60_000,
    });
    // The on-air bar says so to screen readers too.
    expect(await studio.getByTestId('onair-bar').getAttribute('data-state')).toBe('live');
    await settled(studio);
    expect(await seriousViolations(studio)).toEqual([]);
    // From the on-air bar down to the meter and "End broadcast".
    await studio.screenshot({
      path: screenshotPath('studio-live-1280x800'),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1280, height: 1000 },
    });
    await studio.setViewportSize(PHONE);
    await settled(studio);
    expect(await seriousViolations(studio)).toEqual([]);
    // On a phone the station's card (LIVE) and the broadcast card below it.
    await studio
      .getByTestId('station-status')
      .first()
      .evaluate((el) => {
        // Just below the sticky header and on-air bar.
        const card = el.closest('section, .card') ?? el;
        const bar = document.querySelector('[data-testid=onair-bar]');
        const top = bar ? bar.getBoundingClientRect().bottom : 0;
        scrollTo(0, card.getBoundingClientRect().top + scrollY - top - 12);
      });
    await studio.screenshot({ path: screenshotPath('studio-live-390x844') });
    await studio.evaluate(() => scrollTo(0, 0));
    await studio.setViewportSize(DESKTOP);

    // A listener, by keyboard only: Tab to Play, Enter, and the state is announced.
    const context = await browser.newContext({ viewport: PHONE });
    const listener = await newPage(context);
    await visit(listener, `/${owner.username}/night-owl`, '[data-testid=station]');
    await listener.waitForSelector('[data-testid=station-status][data-status=live]');
    const play = listener.getByTestId('play-button');
    for (let i = 0; i < 60; i++) {
      await listener.keyboard.press('Tab');
      if (await play.evaluate((el) => el === document.activeElement)) break;
    }
    expect(await play.evaluate((el) => el === document.activeElement)).toBe(true);
    await listener.keyboard.press('Enter');
    const status = listener.getByTestId('player-state');
    expect(await status.getAttribute('role')).toBe('status');
    await listener.waitForSelector('[data-testid=player-state][data-state=live]', {
      timeout: 60_000,
    });
    expect(await seriousViolations(listener)).toEqual([]);
    await listener.screenshot({ path: screenshotPath('station-live-390x844') });
    await listener.setViewportSize(DESKTOP);
    await settled(listener);
    await listener.screenshot({ path: screenshotPath('station-live-1280x800') });
    // The embed player at its minimum size while the station is live.
    await listener.setViewportSize({ width: 350, height: 300 });
    await visit(listener, `/embed/${owner.username}/night-owl`, 'radio-player');
    await listener.locator('radio-player .card.live').waitFor();
    expect(await seriousViolations(listener)).toEqual([]);
    await listener.screenshot({ path: screenshotPath('embed-live-350x300') });
    await context.close();
  }, 90_000);

  it('a dialog takes focus, Escape closes it and focus goes back to what opened it', async () => {
    const end = studio.getByTestId('end-broadcast');
    await end.focus();
    await studio.keyboard.press('Enter');
    const dialog = studio.getByTestId('end-dialog');
    await dialog.waitFor();
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    expect(await seriousViolations(studio)).toEqual([]);
    await studio.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await studio.waitForFunction(
      () => document.activeElement?.getAttribute('data-testid') === 'end-broadcast',
    );
    // Still live: Escape only closed the question.
    expect(await studio.getByTestId('broadcast-state').getAttribute('data-state')).toBe('live');
    await studioContext.close();
  });

  it('no page raised an uncaught error', () => {
    expect(problems).toEqual([]);
  });
});
