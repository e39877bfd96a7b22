/**
 * The demo station is really live: the server (with `DEMO_STATION=true`, the default of `npm start`)
 * publishes its synthesised loop through the engine's packet publisher, and "Listen to the demo" on
 * the home page plays it in Debian's Chromium over WebRTC (the server counts the listener, and the
 * demo's page shows that count and the loop's real now playing). Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_STATION_ID, type Station } from '@radiobroadcaster/contracts';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import { audioLevel, getStation, startWebApp, until, watchProblems } from '../support/web-app.js';

const AUDIO = '[data-testid=station-audio]';

describe('the demo station', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startWebApp({ DEMO_STATION: 'true' }), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('is on air with its now playing, published by the server itself', async () => {
    const station = await until(
      'the demo station to go live',
      () => getStation(app.url, DEMO_STATION_ID).catch(() => null),
      (s: Station | null) => s?.status === 'live' && s.nowPlaying !== null,
      45_000,
    );
    expect(station).toMatchObject({
      slug: 'demo',
      broadcaster: { username: 'radiobroadcaster' },
      nowPlaying: { track: 'Morning Drift (loop)', artist: 'Radio Broadcaster' },
    });
    // Nobody can claim its name.
    const res = await fetch(`${app.url}/api/users/radiobroadcaster/stations/demo`);
    expect(res.status).toBe(200);
  }, 60_000);

  it('"Listen to the demo" on the home page plays it live over WebRTC', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${app.url}/`);
    await page.getByTestId('demo-link').click();
    await page.waitForURL((u) => u.pathname === '/radiobroadcaster/demo');
    // The page shows the live demo as the server has it, not the embed's built-in data.
    await page
      .getByTestId('now-playing-track')
      .filter({ hasText: 'Morning Drift (loop)' })
      .waitFor();
    expect(await page.getByTestId('now-playing-artist').textContent()).toBe('Radio Broadcaster');
    expect(await page.getByTestId('now-playing-album').textContent()).toBe('Demo · CC0');
    await page.getByTestId('play-button').click();
    await page.locator('[data-testid=player][data-state=live]').waitFor();
    // A real listener of the real station (the generated chord would not count).
    await until(
      'the server to count the listener',
      () => getStation(app.url, DEMO_STATION_ID),
      (s) => s.viewerCount === 1,
      20_000,
    );
    // And the page counts that listener as the home card does.
    await page.locator('[data-testid=station-listeners][data-count="1"]').waitFor();
    expect(await page.getByTestId('station-listeners').textContent()).toContain('1 listener');
    expect(await audioLevel(page, AUDIO, 3000, -40)).toBeGreaterThan(-40);
    expect(
      await page.evaluate(
        (sel) => (document.querySelector(sel) as HTMLAudioElement).srcObject instanceof MediaStream,
        AUDIO,
      ),
    ).toBe(true);
    await page.getByTestId('play-button').click();
    await until(
      'the listener to leave',
      () => getStation(app.url, DEMO_STATION_ID),
      (s) => s.viewerCount === 0,
      20_000,
    );
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
