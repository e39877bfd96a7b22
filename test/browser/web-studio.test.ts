/**
 * The broadcaster studio in Debian's Chromium with the fake capture device
 * (`--use-fake-device-for-media-stream --use-fake-ui-for-media-stream`: inputs that beep), against the
 * real API serving the built app: sign in, create a station, pick an input and go live over WHIP with a
 * level meter; a second browser hears it, the studio sees that listener, and now playing reaches the
 * listener within 2 s. Moving around the site keeps the station on air (on-air bar, listener still
 * hears it past the grace period), leaving the page is guarded; ending the broadcast clears now
 * playing and allows going live again; deleting frees the slug and tells the listener. Needs
 * `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath, toneProminence } from '../support/browser.js';
import { holdsFor } from '../support/wait.js';
import { audioLevel, getStation, startWebApp, until, watchProblems } from '../support/web-app.js';

const AUDIO = '[data-testid=station-audio]';
/** Chromium's fake microphone beeps at about -10 dBFS; silence measures below -90. */
const HEARD_DBFS = -45;
const FAKE_MIC_HZ = 400;
const GRACE_MS = 1500;

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
    app = await startWebApp({ PUBLISHER_GRACE_MS: String(GRACE_MS) });
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

  // Two Chromiums and the app with live WebRTC sessions to close: more than Jest's 30 s default
  // on a loaded machine (seen once in CI).
  afterAll(async () => {
    await broadcasterBrowser?.close();
    await listenerBrowser?.close();
    await app?.close();
  }, 90_000);

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

  it('lists the inputs, goes live with the one chosen and meters its level', async () => {
    await studio.getByTestId('source-microphone').check();
    const select = studio.getByTestId('input-device');
    await select.waitFor();
    // Chromium names the inputs once the site may use the microphone (granted by the fake UI).
    await studio.waitForFunction(() => {
      document.querySelector<HTMLButtonElement>('[data-testid=reveal-inputs]')?.click();
      return document.querySelectorAll('[data-testid=input-device] option').length >= 3;
    });
    const options = await select.locator('option').allTextContents();
    expect(options[0]).toBe('System default');
    const chosen = options.find((o) => /Fake Audio Input 1/.test(o)) ?? options[1]!;
    await select.selectOption({ label: chosen });

    await studio.getByTestId('go-live').click();
    await studio.waitForSelector('[data-testid=broadcast-state][data-state=live]', {
      timeout: 15_000,
    });
    expect(await studio.getByTestId('broadcast-message').count()).toBe(0);
    expect(await studio.getByTestId('broadcast-state').textContent()).toContain(chosen);
    await studio.waitForSelector('[data-testid=station-status][data-status=live]', {
      timeout: 5000,
    });
    const station = await getStation(app.url, stationId);
    expect(station.status).toBe('live');
    expect(station.isActive).toBe(true);
    // The fake input beeps loudly: the meter reads it (from the -60 dB floor)...
    await studio.waitForFunction(
      () =>
        Number(document.querySelector('[data-testid=level-meter]')?.getAttribute('aria-valuenow')) >
        -40,
      undefined,
      { timeout: 5000 },
    );
    // ...and its beeps reach full scale (measured: peak samples at 1.0), which is clipping.
    await studio.waitForSelector('[data-testid=clipping-warning][data-active=true]', {
      timeout: 5000,
    });
    expect(await studio.getByTestId('clipping-warning').textContent()).toMatch(/^Clipping/);
    // The bar is on every page, the studio included.
    expect(await studio.getByTestId('onair-bar').getAttribute('data-state')).toBe('live');
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
    const level = await audioLevel(listener, AUDIO, 3000, HEARD_DBFS);
    expect(level).toBeGreaterThan(HEARD_DBFS);
    // Its beep is a 400 Hz tone (measured: the spectrum peaks there, ~50 dB above the median).
    expect(
      await toneProminence(listener, { audioSelector: AUDIO }, FAKE_MIC_HZ, 2000, 30),
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

  it('moving around the site keeps the station on air; the bar leads back to the studio', async () => {
    await studio.getByTestId('account-menu').click();
    await studio.getByRole('link', { name: 'Allowed domains' }).click();
    await studio.getByTestId('domains-page').waitFor();
    expect(await studio.locator('details.account').getAttribute('open')).toBeNull();
    const bar = studio.getByTestId('onair-bar');
    expect(await bar.getAttribute('data-state')).toBe('live');
    expect(await studio.getByTestId('onair-listeners').getAttribute('data-count')).toBe('1');
    expect(await studio.getByTestId('onair-elapsed').textContent()).toMatch(/^\d\d:\d\d$/);
    await studio.getByRole('link', { name: 'About' }).first().click();
    await studio.getByTestId('page-title').waitFor();
    // Past the publisher grace period: a dropped publisher would have taken the station off air.
    await holdsFor(
      async () => (await getStation(app.url, stationId)).status === 'live',
      GRACE_MS + 1500,
      'the station live',
      250,
    );
    expect(await audioLevel(listener, AUDIO, 3000, HEARD_DBFS)).toBeGreaterThan(HEARD_DBFS);
    expect(await listener.getByTestId('station-status').getAttribute('data-status')).toBe('live');

    // Leaving the site while on air is guarded; a page with nothing on air is not.
    const guarded = () =>
      studio.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        dispatchEvent(e);
        return e.defaultPrevented;
      });
    expect(await guarded()).toBe(true);

    await studio.getByTestId('onair-studio-link').click();
    await studio.getByTestId('broadcast').waitFor();
    expect(await studio.getByTestId('broadcast-state').getAttribute('data-state')).toBe('live');
    expect(new URL(studio.url()).searchParams.get('station')).toBe(stationId);
  }, 40_000);

  it('ending the broadcast asks first, clears now playing, and allows going live again', async () => {
    await studio.getByTestId('field-track').fill('Last Song');
    await studio.getByTestId('now-playing-set').click();
    await listener.getByText('Last Song').waitFor({ timeout: 5000 });

    await studio.getByTestId('end-broadcast').click();
    const dialog = studio.getByTestId('end-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe('End the broadcast?');
    // Cancel keeps everything as it was, and focus goes back to the button.
    await studio.getByTestId('end-dialog-cancel').click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await studio.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'end-broadcast',
    );
    expect((await getStation(app.url, stationId)).status).toBe('live');

    await studio.getByTestId('end-broadcast').click();
    await studio.getByTestId('end-dialog-confirm').click();
    await studio.waitForSelector('[data-testid=station-status][data-status=ended]', {
      timeout: 5000,
    });
    await studio.waitForSelector('[data-testid=broadcast-state][data-state=idle]', {
      timeout: 2000,
    });
    expect(await studio.getByTestId('onair-bar').count()).toBe(0);
    await listener.waitForSelector('[data-testid=station-status][data-status=ended]', {
      timeout: 5000,
    });
    // off air, the listener's page says when it was last live and shows no title any more
    await listener.getByTestId('station-last-live').waitFor({ timeout: 5000 });
    await listener.getByTestId('now-playing-track').waitFor({ state: 'detached', timeout: 5000 });
    const ended = await until(
      'the API to report the station ended',
      () => getStation(app.url, stationId),
      (s) => s.status === 'ended' && !s.isActive,
    );
    expect(ended.nowPlaying).toBeNull();
    // Nothing on air: leaving is not guarded any more.
    expect(
      await studio.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        dispatchEvent(e);
        return e.defaultPrevented;
      }),
    ).toBe(false);

    // The remembered source and input come back on a fresh load; going live works again.
    await studio.reload();
    await studio.getByTestId('broadcast').waitFor();
    expect(await studio.getByTestId('source-microphone').isChecked()).toBe(true);
    expect(await studio.getByTestId('go-live').isDisabled()).toBe(false);
    await studio.getByTestId('go-live').click();
    await studio.waitForSelector('[data-testid=station-status][data-status=live]', {
      timeout: 15_000,
    });
  }, 40_000);

  it('deleting asks for the slug, tells the listener the station is gone and frees the slug', async () => {
    await studio.getByTestId('delete-station').click();
    const dialog = studio.getByTestId('delete-dialog');
    await dialog.waitFor();
    // The button does nothing until the slug is typed.
    expect(await studio.getByTestId('delete-dialog-confirm').getAttribute('aria-disabled')).toBe(
      'true',
    );
    await studio.getByTestId('delete-dialog-confirm').click({ force: true });
    expect(await dialog.isVisible()).toBe(true);
    await studio.getByTestId('delete-confirm-slug').fill('studio-live');
    await studio.getByTestId('delete-dialog-confirm').click();
    await dialog.waitFor({ state: 'hidden' });
    await studio.getByTestId('create-station-form').waitFor();
    expect(await studio.getByTestId('onair-bar').count()).toBe(0);

    await listener.getByTestId('station-gone').waitFor({ timeout: 5000 });
    expect(await listener.getByTestId('station-gone').textContent()).toContain(
      'This station has been deleted.',
    );
    expect(await listener.getByTestId('play-button').count()).toBe(0);
    const res = await fetch(`${app.url}/api/stations/${stationId}`);
    expect(res.status).toBe(404);

    // The address is free again.
    await studio.getByTestId('field-name').fill('Studio Live');
    await studio.getByTestId('create-station').click();
    await studio.getByTestId('broadcast').waitFor();
    const again = new URL(studio.url()).searchParams.get('station') ?? '';
    expect(again).not.toBe(stationId);
    expect((await getStation(app.url, again)).slug).toBe('studio-live');
    expect([...studioProblems, ...listenerProblems]).toEqual([]);
  }, 40_000);
});
