/**
 * The listening page in Debian's Chromium against the real API serving the built app: a station
 * published by the CLI (`radio-broadcaster broadcast --tone 440`) is heard on `/{username}/{slug}`, and
 * now playing and the listener count follow API updates within 2 s. Saves the live station page
 * screenshot. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import {
  launchChromium,
  screenshotPath,
  toneOverOther,
  toneProminence,
} from '../support/browser.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  getStation,
  setNowPlaying,
  startWebApp,
  watchProblems,
} from '../support/web-app.js';

const TONE_HZ = 440;
/** Long enough to see the station wait for its publisher, short enough to see it give up. */
const GRACE_MS = 4000;
const AUDIO = '[data-testid=station-audio]';

describe('station page: listening to a CLI broadcast', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  let slug: string;
  let token: string;
  let cli: CliBroadcast | undefined;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    app = await startWebApp({ PUBLISHER_GRACE_MS: String(GRACE_MS) });
    browser = await launchChromium();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, {
      name: 'Tone FM',
      slug: 'tone-fm',
      description: 'A steady 440 Hz.',
    });
    stationId = created.station.id;
    slug = created.station.slug;
    token = created.streamToken.token;
    cli = await startTone();
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    problems = watchProblems(page);
  }, 60_000);

  const startTone = () =>
    cliBroadcastTone({
      server: app.url,
      station: `${owner.username}/${slug}`,
      token,
      hz: TONE_HZ,
    });

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await app?.close();
  });

  it('shows the live station with its name, description and page title', async () => {
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    await page.getByTestId('station').waitFor();
    expect(await page.getByTestId('station-name').textContent()).toBe('Tone FM');
    expect(await page.getByTestId('station-description').textContent()).toBe('A steady 440 Hz.');
    await page.waitForSelector('[data-testid=station-status][data-status=live]');
    expect(await page.title()).toBe(`Tone FM by @${owner.username} | Radio Broadcaster`);
    expect(await page.getByTestId('station-listeners').getAttribute('data-count')).toBe('0');
  });

  it('plays the tone the CLI publishes and counts the page as a listener within 2 s', async () => {
    await page.getByRole('button', { name: 'Play Tone FM' }).click();
    await page.waitForSelector('[data-testid=player-state][data-state=live]', { timeout: 15_000 });
    const liveAt = Date.now();
    // The page's own listener shows up in its count within 2 s (socket push or the 2 s poll).
    await page.waitForSelector('[data-testid=station-listeners][data-count="1"]', {
      timeout: 2000,
    });
    expect(Date.now() - liveAt).toBeLessThanOrEqual(2000);
    expect((await getStation(app.url, stationId)).viewerCount).toBe(1);
    expect(await page.getByTestId('play-button').getAttribute('aria-label')).toBe('Stop Tone FM');

    const { at: at440, other: at1000 } = await toneOverOther(
      page,
      { audioSelector: AUDIO },
      TONE_HZ,
      1000,
    );
    expect(at440).toBeGreaterThanOrEqual(20);
    // The energy is at the published frequency, not everywhere.
    expect(at1000).toBeLessThan(at440 - 15);
  }, 40_000);

  it('shows now playing within 2 s of the owner setting it through the API', async () => {
    const t0 = Date.now();
    await setNowPlaying(app.url, owner, {
      stationId,
      track: 'Concert A <b>440</b>',
      artist: 'Oscillator',
      album: 'Sine Waves',
    });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid=now-playing-track]')?.textContent ===
        'Concert A <b>440</b>',
      undefined,
      { timeout: 2000, polling: 50 },
    );
    expect(Date.now() - t0).toBeLessThanOrEqual(2000);
    expect(await page.getByTestId('now-playing-artist').textContent()).toBe('Oscillator');
    expect(await page.getByTestId('now-playing-album').textContent()).toBe('Sine Waves');
    // User text is rendered as text, never as markup.
    expect(await page.locator('[data-testid=now-playing-track] b').count()).toBe(0);

    const t1 = Date.now();
    await setNowPlaying(app.url, owner, { stationId, track: 'Second Song' });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid=now-playing-track]')?.textContent === 'Second Song',
      undefined,
      { timeout: 2000, polling: 50 },
    );
    expect(Date.now() - t1).toBeLessThanOrEqual(2000);
    expect(await page.getByTestId('now-playing-artist').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('station-page-live'), fullPage: true });
  });

  it('volume and mute drive the audio element', async () => {
    const audioState = () =>
      page.$eval(AUDIO, (el) => ({
        volume: Math.round((el as HTMLMediaElement).volume * 100),
        muted: (el as HTMLMediaElement).muted,
      }));
    await page.getByTestId('volume').fill('30');
    await page.waitForFunction(
      (sel) => Math.round((document.querySelector(sel) as HTMLMediaElement).volume * 100) === 30,
      AUDIO,
    );
    await page.getByTestId('mute-button').click();
    expect(await audioState()).toEqual({ volume: 30, muted: true });
    expect(await page.getByTestId('mute-button').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('volume').inputValue()).toBe('0');
    await page.getByTestId('mute-button').click();
    expect(await audioState()).toEqual({ volume: 30, muted: false });
    expect(await page.getByTestId('volume').inputValue()).toBe('30');
  });

  it('says Reconnecting… while the publisher is away, and plays on when it is back', async () => {
    expect(await cli!.stop()).toBe(0);
    await page.waitForSelector('[data-testid=station-status][data-status=reconnecting]', {
      timeout: 3000,
    });
    expect(await page.getByTestId('station-status').textContent()).toBe('Reconnecting…');
    expect(await page.getByTestId('player-state').textContent()).toMatch(/^Reconnecting…/);
    expect(await page.getByTestId('play-button').textContent()).toContain('Reconnecting…');
    expect((await getStation(app.url, stationId)).status).toBe('reconnecting');

    cli = await startTone();
    await page.waitForSelector('[data-testid=station-status][data-status=live]', { timeout: 5000 });
    await page.waitForSelector(
      '[data-testid=player-state][data-state=live]:not([data-reconnecting])',
    );
    expect(await toneProminence(page, { audioSelector: AUDIO }, TONE_HZ, 3000, 20)).toBeGreaterThan(
      20,
    );
  }, 40_000);

  it('stops playing and the listener count drops back within 2 s', async () => {
    await page.getByRole('button', { name: 'Stop Tone FM' }).click();
    const t0 = Date.now();
    await page.waitForSelector('[data-testid=player-state][data-state=idle]', { timeout: 2000 });
    await page.waitForSelector('[data-testid=station-listeners][data-count="0"]', {
      timeout: 2000,
    });
    expect(Date.now() - t0).toBeLessThanOrEqual(2000);
  });

  it('shows the station offline once the CLI stops, within 2 s plus the publisher grace', async () => {
    const code = await cli!.stop();
    cli = undefined;
    expect(code).toBe(0);
    await page.waitForSelector('[data-testid=station-status][data-status=reconnecting]', {
      timeout: 3000,
    });
    await page.waitForSelector('[data-testid=station-status][data-status=offline]', {
      timeout: GRACE_MS + 2000 + 1000,
    });
    expect(problems).toEqual([]);
  });
});
