/**
 * The broadcaster studio in Debian's Chromium with the fake capture device
 * (`--use-fake-device-for-media-stream --use-fake-ui-for-media-stream`: a microphone that beeps),
 * against the real API serving the built app: sign in, create a station, go live with the microphone
 * over WHIP; a second browser hears it on the public station page, the studio sees that listener, and
 * now playing set in the studio reaches the listener within 2 s; ending the station takes it off the
 * air. Saves the studio screenshot. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/src/testing/test-app.js';
import { signUp } from '../../apps/api/src/testing/test-app.js';
import { launchChromium, screenshotPath, toneProminence } from '../support/browser.js';
import { audioLevel, getStation, startWebApp, until, watchProblems } from '../support/web-app.js';

const AUDIO = '[data-testid=station-audio]';
/** Chromium's fake microphone beeps at about -10 dBFS; silence measures below -90. */
const HEARD_DBFS = -45;
const FAKE_MIC_HZ = 400;

describe('studio: going live from the browser', () => {
  let app: TestApp;
  let broadcasterBrowser: Browser;
  let listenerBrowser: Browser;
  let user: TestUser;
  let studio: Page;
  let listener: Page;
  let stationId: string;
  let studioProblems: string[] = [];
  let listenerProblems: string[] = [];

  beforeAll(async () => {
    app = await startWebApp({ PUBLISHER_GRACE_MS: '1000' });
    [broadcasterBrowser, listenerBrowser] = await Promise.all([
      launchChromium({ fakeMedia: true }),
      launchChromium(),
    ]);
    user = await signUp(app.url);
    studio = await broadcasterBrowser.newPage({ viewport: { width: 1280, height: 900 } });
    listener = await listenerBrowser.newPage();
    studio.setDefaultTimeout(10_000);
    listener.setDefaultTimeout(10_000);
    studioProblems = watchProblems(studio);
    listenerProblems = watchProblems(listener);
  }, 60_000);

  afterAll(async () => {
    await broadcasterBrowser?.close();
    await listenerBrowser?.close();
    await app?.close();
  });

  it('signs in and creates a station in the studio', async () => {
    await studio.goto(`${app.url}/signin`);
    await studio.getByTestId('field-email').fill(user.email);
    await studio.getByTestId('field-password').fill(user.password);
    await studio.getByTestId('signin-submit').click();
    await studio.getByTestId('studio').waitFor();
    expect(new URL(studio.url()).pathname).toBe('/studio');

    // No stations yet: the form to create one.
    await studio.getByTestId('field-name').fill('Studio Live');
    await studio.getByTestId('create-station').click();
    await studio.getByTestId('broadcast').waitFor();
    expect(await studio.getByTestId('station-name').textContent()).toBe('Studio Live');
    stationId = new URL(studio.url()).searchParams.get('station') ?? '';
    const station = await getStation(app.url, stationId);
    expect(station.slug).toBe('studio-live');
    expect(station.status).not.toBe('live');
  });

  it('goes live with the fake microphone', async () => {
    await studio.getByTestId('source-microphone').check();
    await studio.getByTestId('go-live').click();
    await studio.waitForSelector('[data-testid=broadcast-state][data-state=live]', {
      timeout: 15_000,
    });
    expect(await studio.getByTestId('broadcast-message').count()).toBe(0);
    await studio.waitForSelector('[data-testid=station-status][data-status=live]', {
      timeout: 5000,
    });
    const station = await getStation(app.url, stationId);
    expect(station.status).toBe('live');
    expect(station.isActive).toBe(true);
  });

  it('a second browser hears it on the station page, and the studio counts that listener', async () => {
    await listener.goto(`${app.url}/${user.username}/studio-live`);
    await listener.waitForSelector('[data-testid=station-status][data-status=live]');
    expect(await listener.title()).toBe(`Studio Live by @${user.username} | Radio Broadcaster`);
    expect(await audioLevel(listener, AUDIO, 200)).toBe(-Infinity); // nothing before Play
    await listener.getByRole('button', { name: 'Play Studio Live' }).click();
    await listener.waitForSelector('[data-testid=player-state][data-state=live]', {
      timeout: 15_000,
    });
    const level = await audioLevel(listener, AUDIO, 3000);
    expect(level).toBeGreaterThan(HEARD_DBFS);
    // Its beep is a 400 Hz tone (measured: the spectrum peaks there, ~50 dB above the median).
    expect(
      await toneProminence(listener, { audioSelector: AUDIO }, FAKE_MIC_HZ, 2000),
    ).toBeGreaterThan(30);

    // The listener shows up in the studio (socket push or the 2 s poll).
    await studio.waitForSelector('[data-testid=station-listeners][data-count="1"]', {
      timeout: 5000,
    });
    expect(await studio.getByTestId('station-listeners').textContent()).toContain('1 listener');
  }, 40_000);

  it('now playing set in the studio reaches the listener within 2 s, and clearing it too', async () => {
    await studio.getByTestId('field-track').fill('Live From The Studio');
    await studio.getByTestId('field-artist').fill('The Fake Mic');
    await studio.getByTestId('field-album').fill('Beeps');
    const t0 = Date.now();
    await studio.getByTestId('now-playing-set').click();
    await listener.waitForFunction(
      () =>
        document.querySelector('[data-testid=now-playing-track]')?.textContent ===
        'Live From The Studio',
      undefined,
      { timeout: 2000, polling: 50 },
    );
    expect(Date.now() - t0).toBeLessThanOrEqual(2000);
    expect(await listener.getByTestId('now-playing-artist').textContent()).toBe('The Fake Mic');
    expect(await listener.getByTestId('now-playing-album').textContent()).toBe('Beeps');
    expect((await getStation(app.url, stationId)).nowPlaying?.track).toBe('Live From The Studio');
    // Scrolled to the top first, or the sticky site header lands mid-page in a full-page capture.
    await studio.evaluate(() => window.scrollTo(0, 0));
    await studio.screenshot({ path: screenshotPath('studio'), fullPage: true });

    const t1 = Date.now();
    await studio.getByTestId('now-playing-clear').click();
    await listener.getByTestId('now-playing-empty').waitFor({ timeout: 2000 });
    expect(Date.now() - t1).toBeLessThanOrEqual(2000);
  });

  it('ending the station takes it off the air for the listener', async () => {
    await studio.getByTestId('end-station').click();
    await studio.getByTestId('end-station-confirm').click();
    await studio.waitForSelector('[data-testid=station-status][data-status=ended]', {
      timeout: 5000,
    });
    // The studio stops publishing at once rather than when the connection times out.
    await studio.waitForSelector('[data-testid=broadcast-state][data-state=idle]', {
      timeout: 2000,
    });
    expect(await studio.getByTestId('go-live').isDisabled()).toBe(true);
    await listener.waitForSelector('[data-testid=station-status][data-status=ended]', {
      timeout: 5000,
    });
    await until(
      'the API to report the station ended',
      () => getStation(app.url, stationId),
      (s) => s.status === 'ended' && !s.isActive,
    );
    expect([...studioProblems, ...listenerProblems]).toEqual([]);
  });
});
