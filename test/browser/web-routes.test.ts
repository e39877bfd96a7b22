/**
 * Every route of the web app in Debian's Chromium, against the built app served by the real
 * API: key content or the route's error message, embed themes, sign-up / sign-out through the UI, the
 * station title, the 'Station offline' toast. Saves the home and embed (dark/light) screenshots.
 * Needs `npm run build`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { serveFixture } from '../support/fixtures.js';
import { createStation, setNowPlaying, startWebApp } from '../support/web-app.js';

const SUFFIX = ' | Radio Broadcaster';
const NOT_FOUND_MESSAGE = 'The page you are looking for does not exist.';

describe('web app routes', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let owner: TestUser;
  let stationId: string;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium();
    owner = await signUp(app.url);
    const { station } = await createStation(app.url, owner, {
      name: 'Night Owl Radio',
      slug: 'night-owl',
      description: 'Jazz after midnight.',
    });
    stationId = station.id;
    await setNowPlaying(app.url, owner, { stationId, track: 'Round Midnight', artist: 'Monk' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  let shared: Page | undefined;
  let current = '';
  function watch(page: Page): Page {
    // Shorter than jest's 30 s, so a missing element fails with its selector named.
    page.on('pageerror', (e) => problems.push(`${current}: ${e.message}`));
    return page;
  }

  /**
   * Loads `path` in the shared signed-out page (one context keeps the browser cache warm), or in a
   * fresh context when `fresh` (closed after the test); uncaught page errors are collected.
   */
  async function open(
    path: string,
    opts: { viewport?: { width: number; height: number }; fresh?: boolean } = {},
  ): Promise<Page> {
    const viewport = opts.viewport ?? { width: 1280, height: 800 };
    let page: Page;
    if (opts.fresh) {
      context = await browser.newContext({ viewport });
      page = watch(await context.newPage());
    } else {
      shared ??= watch(await (await browser.newContext()).newPage());
      page = shared;
      await page.setViewportSize(viewport);
    }
    current = path;
    await page.goto(`${app.url}${path}`);
    return page;
  }

  const text = (page: Page, testId: string) => page.getByTestId(testId).first().textContent();

  it('home: title, demo link, page title; screenshot', async () => {
    const page = await open('/');
    await page.getByTestId('home-title').waitFor();
    expect(await text(page, 'home-title')).toBe('Turn Your Mac Into a Private Radio Station');
    expect(await page.getByTestId('demo-link').getAttribute('href')).toBe('/radiobroadcaster/demo');
    expect(await page.title()).toMatch(/Radio Broadcaster/);
    // The discover list: live stations first, then recently active ones such as this offline one.
    await page.getByTestId('live-stations').waitFor();
    expect(
      await page.getByTestId('live-stations').getByTestId('station-card').textContent(),
    ).toContain('Night Owl Radio');
    await page.screenshot({ path: screenshotPath('home'), fullPage: true });
  });

  it.each([
    ['/about', 'About Radio Broadcaster'],
    ['/embed', 'Put your station on any website'],
    ['/ios', 'Radio Broadcaster for iOS'],
    ['/privacy', 'Privacy policy'],
    ['/signin', 'Sign in'],
    ['/tutorial', 'Go live in five steps'],
  ])('static page %s shows its heading and a title of its own', async (path, heading) => {
    const page = await open(path);
    await page.getByTestId('page-title').waitFor();
    expect(await text(page, 'page-title')).toBe(heading);
    expect(await page.getByTestId('not-found').count()).toBe(0);
    expect(await page.title()).toMatch(/\S.* \| Radio Broadcaster$/);
  });

  it('the Media Session fixture page exercises lock-screen metadata with the demo station', async () => {
    context = await browser.newContext();
    const page = watch(await context.newPage());
    current = 'media-session fixture';
    const url = await serveFixture(page, app.url, 'media-session', {
      title: 'Media Session test',
      body: `<h1>Media Session test</h1><button type="button" data-testid="play-button">Play demo</button>
        <audio></audio><dl><dt>Media Session</dt><dd data-testid="media-session-support"></dd>
        <dt>State</dt><dd data-testid="media-session-state"></dd></dl>
        <ol data-testid="media-session-log" aria-live="polite"></ol>`,
    });
    await page.goto(url);
    await page.getByTestId('media-session-support').waitFor();
    expect(await text(page, 'media-session-support')).toBe('Supported');
    expect(await text(page, 'media-session-state')).toBe('paused');
    await page.getByTestId('play-button').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=media-session-state]')?.textContent === 'playing',
      undefined,
      { timeout: 60_000 },
    );
    const metadata = await page.evaluate(() => {
      const m = navigator.mediaSession.metadata;
      return m ? { title: m.title, artist: m.artist, album: m.album } : null;
    });
    expect(metadata?.title).toBeTruthy();
    expect(metadata).toEqual({ title: 'Demo Track', artist: 'Demo Artist', album: 'Demo Album' });
    expect(await text(page, 'media-session-log')).toContain('metadata set');
    await page.getByTestId('play-button').click();
    expect(await text(page, 'media-session-state')).toBe('paused');
    expect(await page.evaluate(() => navigator.mediaSession.playbackState)).toBe('paused');
  });

  it('/test-media-session is not a page of the product', async () => {
    const page = await open('/test-media-session');
    await page.getByTestId('profile-error').or(page.getByTestId('not-found')).first().waitFor();
    expect(await page.getByTestId('media-session-support').count()).toBe(0);
  });

  it("profile: the broadcaster's name and station cards", async () => {
    const page = await open(`/${owner.username}/`);
    await page.getByTestId('profile').waitFor();
    expect(await text(page, 'profile-name')).toBe(`User ${owner.username}`);
    const cards = page.getByTestId('station-card');
    expect(await cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain('Night Owl Radio');
    await cards.first().click();
    await page.waitForURL(`${app.url}/${owner.username}/night-owl`);
    await page.getByTestId('station-name').waitFor();
  });

  /** Client-side navigation, as a link inside the app would do (no request for the document). */
  async function navigateInApp(page: Page, path: string): Promise<void> {
    await page.evaluate((to) => {
      history.pushState({}, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
  }

  async function expectUserNotFound(page: Page): Promise<void> {
    await page.getByTestId('profile-error').waitFor();
    expect(await page.locator('[data-testid=profile-error] h1').textContent()).toBe(
      'User not found',
    );
    expect(await page.getByTestId('profile').count()).toBe(0);
  }

  it.each(['/favicon.ico/', '/logo.png/', '/static/', '/assets/', '/nobody-by-this-name/'])(
    "profile %s loaded directly → 'User not found'",
    async (path) => {
      await expectUserNotFound(await open(path));
    },
  );

  it.each(['/api/', '/robots.txt/', '/sitemap.xml/', '/favicon.ico/', '/static/', '/song.mp3/'])(
    "profile %s reached inside the app → 'User not found'",
    async (path) => {
      const page = await open('/about');
      await page.getByTestId('page-title').waitFor();
      await navigateInApp(page, path);
      await expectUserNotFound(page);
    },
  );

  it('/api/, /robots.txt and /sitemap.xml belong to the server, not the app', async () => {
    const api = await fetch(`${app.url}/api/`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/json/);
    expect(await (await fetch(`${app.url}/robots.txt`)).text()).toMatch(/Sitemap:/);
  });

  it('station page by slug: name, status, description, now playing, listeners, controls, title', async () => {
    const page = await open(`/${owner.username}/night-owl`);
    await page.getByTestId('station').waitFor();
    expect(await text(page, 'station-name')).toBe('Night Owl Radio');
    expect(await page.getByTestId('station-status').getAttribute('data-status')).toBe('offline');
    expect(await text(page, 'station-status')).toBe('Off air');
    expect(await text(page, 'station-description')).toBe('Jazz after midnight.');
    expect(await text(page, 'now-playing-track')).toBe('Round Midnight');
    expect(await text(page, 'now-playing-artist')).toBe('Monk');
    expect(await page.getByTestId('station-listeners').getAttribute('data-count')).toBe('0');
    expect(await text(page, 'station-listeners')).toContain('0 listeners');
    // Off air: no big Play that could only wait, and no volume until something plays.
    expect(await text(page, 'play-button')).toBe('Listen when it goes live');
    expect(await page.getByTestId('volume').count()).toBe(0);
    expect(await page.title()).toBe(`Night Owl Radio by @${owner.username}${SUFFIX}`);
  });

  it('the server sends the station title and description in the HTML itself', async () => {
    const html = await (await fetch(`${app.url}/${owner.username}/night-owl`)).text();
    expect(html).toContain(`<title>Night Owl Radio by @${owner.username}${SUFFIX}</title>`);
    expect(html).toContain('Jazz after midnight.');
  });

  it('station page by id: the same station', async () => {
    const page = await open(`/station/${stationId}`);
    await page.getByTestId('station').waitFor();
    expect(await text(page, 'station-name')).toBe('Night Owl Radio');
    expect(await page.getByTestId('station').getAttribute('data-station-id')).toBe(stationId);
    expect(await page.title()).toBe(`Night Owl Radio by @${owner.username}${SUFFIX}`);
  });

  it.each([
    ['unknown slug', () => `/${owner.username}/no-such-station`],
    ['unknown id', () => '/station/3f1c2a4e-1111-4222-8333-444455556666'],
    ['malformed id', () => '/station/not-a-station-id'],
  ])("%s → 'Station not found' with Go back and Start Over", async (_what, path) => {
    const page = await open(path());
    await page.getByTestId('not-found').waitFor();
    expect(await page.locator('[data-testid=not-found] h1').textContent()).toBe(
      'Station not found',
    );
    await page.getByRole('button', { name: 'Go back' }).waitFor();
    await page.getByRole('link', { name: 'Start Over' }).click();
    await page.getByTestId('home-title').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('the demo station: the embed loader serves built-in data with no call; the site asks the server first', async () => {
    // This server does not run the demo (DEMO_STATION=false): the API does not know it.
    expect((await fetch(`${app.url}/api/users/radiobroadcaster/stations/demo`)).status).toBe(404);
    context = await browser.newContext();
    const page = await context.newPage();
    // The embed page is the built-in station (a call would have answered 404: 'Station unavailable').
    await page.goto(`${app.url}/embed/radiobroadcaster/demo`);
    await page.getByTestId('embed-player').waitFor();
    expect(await page.getByTestId('embed-error').count()).toBe(0);
    await page.waitForFunction(
      (t) => document.title === t,
      `Radio Broadcaster Demo by @radiobroadcaster${SUFFIX}`,
    );

    // The site's page asks the server (where the server runs the demo it shows its real now
    // playing, see demo-station.test.ts); here it falls back to the built-in data.
    const asked: string[] = [];
    page.on('request', (r) => {
      if (/\/api\/(users|stations)\//.test(new URL(r.url()).pathname)) asked.push(r.url());
    });
    await page.goto(`${app.url}/radiobroadcaster/demo`);
    await page.getByTestId('station').waitFor();
    expect(await text(page, 'station-name')).toBe('Radio Broadcaster Demo');
    expect(await page.getByTestId('station-status').getAttribute('data-status')).toBe('live');
    expect(await text(page, 'now-playing-track')).toBe('Demo Track');
    expect(await page.getByTestId('station-listeners').getAttribute('data-count')).toBe('0');
    expect(asked.some((u) => u.endsWith('/api/users/radiobroadcaster/stations/demo'))).toBe(true);
  });

  it.each([
    ['', 'dark', 'station-dark'],
    ['?theme=light', 'light', 'station-light'],
    ['?theme=dark', 'dark', null],
    ['?theme=purple', 'dark', null],
  ])('embed%s → data-theme %s', async (query, theme, shot) => {
    const page = await open(`/embed/${owner.username}/night-owl${query}`, {
      viewport: { width: 400, height: 350 },
    });
    await page.getByTestId('embed').waitFor();
    await page.waitForSelector(`html[data-theme=${theme}]`);
    expect(await page.getByTestId('embed').getAttribute('data-theme')).toBe(theme);
    // The page is the embeddable player itself, in the same theme.
    const player = page.getByTestId('embed-player');
    expect(await player.getAttribute('theme')).toBe(theme);
    await player.locator('.name', { hasText: 'Night Owl Radio' }).waitFor();
    await player.locator('button.play').waitFor();
    // Minimal chrome: no site header or footer around the player.
    expect(await page.locator('.site-header, nav[aria-label=Main]').count()).toBe(0);
    expect(await page.title()).toBe(`Night Owl Radio by @${owner.username}${SUFFIX}`);
    if (shot) await page.screenshot({ path: screenshotPath(shot) });
  });

  it('embed of an unknown station shows its error', async () => {
    const page = await open(`/embed/${owner.username}/nope?theme=light`);
    await page.getByTestId('embed-error').waitFor();
    expect(await page.getByTestId('station').count()).toBe(0);
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
  });

  it("an unmatched path → 'Not Found', the default message, Go back returns", async () => {
    const page = await open('/about');
    await page.getByTestId('page-title').waitFor();
    await page.goto(`${app.url}/this/route/does/not/exist`);
    await page.getByTestId('not-found').waitFor();
    expect(await page.locator('[data-testid=not-found] h1').textContent()).toBe('Not Found');
    expect(await text(page, 'not-found-message')).toBe(NOT_FOUND_MESSAGE);
    await page.getByRole('button', { name: 'Go back' }).click();
    await page.waitForURL(`${app.url}/about`);
  });

  it('external redirects answer 302 outside the app', async () => {
    for (const path of ['/app-store', '/appstore', '/review', '/press', '/discord']) {
      const res = await fetch(`${app.url}${path}`, { redirect: 'manual' });
      expect([path, res.status]).toEqual([path, 302]);
      expect(res.headers.get('location')).toMatch(/^https:\/\//);
    }
  });

  it("/settings/domains without a session → 'Authentication required'", async () => {
    const page = await open('/settings/domains');
    await page.getByTestId('auth-required').waitFor();
    expect(await text(page, 'auth-required')).toContain('Authentication required');
    expect(await page.getByTestId('domains-page').count()).toBe(0);
  });

  it('sign up through the UI, land in the studio, sign out', async () => {
    const page = await open('/signin', { fresh: true });
    const name = `ui${Date.now().toString(36)}`;
    await page.getByTestId('tab-signup').click();
    expect(await text(page, 'page-title')).toBe('Create your account');
    await page.getByTestId('field-name').fill('Ui Person');
    await page.getByTestId('field-username').fill(name);
    await page.getByTestId('field-email').fill(`${name}@example.com`);
    await page.getByTestId('field-password').fill('a long enough password');
    await page.getByTestId('signup-submit').click();
    // A new account hears where its confirmation mail went, then goes on.
    await page.getByTestId('check-inbox').waitFor();
    await page.getByTestId('continue').click();
    await page.getByTestId('studio').waitFor();
    expect(new URL(page.url()).pathname).toBe('/studio');

    // The session shows on /signin, and signing out ends it.
    await page.goto(`${app.url}/signin`);
    await page.getByTestId('signed-in').waitFor();
    expect(await text(page, 'signed-in')).toContain(`@${name}`);
    await page.getByTestId('account-menu').click();
    await page.getByTestId('signout').click();
    // Signing out from the menu goes home, signed out. (The sign-in form this page shows in the
    // moment between is no state to wait for: a loaded CI run went home before it was seen.)
    await page.waitForURL((u) => u.pathname === '/');
    await page.getByTestId('nav-signin').waitFor();
    expect(await page.getByTestId('account-menu').count()).toBe(0);
    // Signed out, the studio opens Sign in (and comes back after).
    await page.goto(`${app.url}/studio`);
    await page.waitForURL((u) => u.pathname === '/signin');
    expect(await text(page, 'page-title')).toBe('Sign in');

    // A wrong password is refused with a message; the right one signs in again.
    await page.goto(`${app.url}/signin`);
    await page.getByTestId('field-email').fill(`${name}@example.com`);
    await page.getByTestId('field-password').fill('not the password');
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('form-error').waitFor();
    expect((await text(page, 'form-error'))?.length).toBeGreaterThan(0);
    await page.getByTestId('field-password').fill('a long enough password');
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('studio').waitFor();
  });

  it("pressing play on an offline station shows the 'Station offline' toast", async () => {
    const page = await open(`/${owner.username}/night-owl`);
    await page.getByTestId('play-button').click();
    const toast = page.locator('[data-sonner-toast]', { hasText: 'Station offline' });
    await toast.waitFor();
    expect(await toast.textContent()).toContain('This station is not currently broadcasting.');
  });

  it('no page raised an uncaught error', () => {
    expect(problems).toEqual([]);
  });
});
