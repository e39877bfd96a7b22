/**
 * The player's HTTP fallback in Debian's Chromium whose WebRTC cannot connect
 * (preference `webrtc.ip_handling_policy` = `disable_non_proxied_udp`, no proxy, no TURN: no usable
 * ICE candidate): the station page tries WebRTC, then within a few seconds plays the station's
 * `/listen/…ogg` stream through its `<audio>` (the tone is heard, frequency checked), says so
 * discreetly, and the next start tries WebRTC first again; a browser whose `canPlayType` says no
 * to Ogg/Opus (older Safari) gets the `.mp3` stream instead. The owner lists allowed domains, so
 * the plain stream URL is private: the player plays the signed URL its join handed it. Needs
 * `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromiumWithoutUdp, screenshotPath, toneProminence } from '../support/browser.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  getStation,
  startWebApp,
  until,
  watchProblems,
} from '../support/web-app.js';

const TONE_HZ = 880;
const AUDIO = '[data-testid=station-audio]';

/** The join's signed stream URL: `{api}/listen/{user}/{slug}.{ext}?t={payload}.{mac}`. */
const signedUrl = (api: string, user: string, slug: string, ext: string) =>
  new RegExp(`^${api}/listen/${user}/${slug}\\.${ext}\\?t=[\\w-]+\\.[\\w-]+$`);

/** The tone's prominence in the `<audio>` element, once it stands more than 20 dB out (or the best over 3 s). */
const elementToneProminence = (page: Page, freq: number): Promise<number> =>
  toneProminence(page, { audioSelector: AUDIO }, freq, 3000, 20);

describe('player: HTTP fallback when WebRTC cannot connect', () => {
  let app: TestApp;
  let browser: BrowserContext;
  let owner: TestUser;
  let stationId: string;
  let slug: string;
  let broadcast: CliBroadcast;

  beforeAll(async () => {
    [app, browser] = await Promise.all([
      startWebApp(),
      // UDP only through a proxy, and there is none: ICE has no candidate to use.
      launchChromiumWithoutUdp(),
    ]);
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Blocked UDP FM' });
    stationId = created.station.id;
    slug = created.station.slug;
    // Listing a domain makes the plain stream URL private (what VLC or a no-referrer page opens).
    const listed = await fetch(`${app.url}/api/me/allowed-domains`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain: 'radio-fan.example' }),
    });
    expect(listed.status).toBe(201);
    broadcast = await cliBroadcastTone({
      server: app.url,
      station: `${owner.username}/${slug}`,
      token: created.streamToken.token,
      hz: TONE_HZ,
      timeoutMs: 30_000,
    });
  }, 90_000);

  afterAll(async () => {
    await broadcast?.stop();
    await browser?.close();
    await app?.close();
  });

  it('plays the HTTP stream after WebRTC fails, says so, and tries WebRTC again next time', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const whepOffers: number[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname.startsWith('/whep/')) {
        whepOffers.push(Date.now());
      }
    });
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    expect(
      await page.evaluate(() =>
        document.createElement('audio').canPlayType('audio/ogg; codecs=opus'),
      ),
    ).not.toBe('');
    const started = Date.now();
    await page.getByTestId('play-button').click();
    await page.locator('[data-testid=player][data-state=live]').waitFor();
    expect(whepOffers.length).toBeGreaterThanOrEqual(1);
    // Within a few seconds of pressing Play (WebRTC gets its chance first).
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await page.getByTestId('player-http').textContent()).toContain('HTTP stream');
    expect(await page.locator(AUDIO).getAttribute('src')).toMatch(
      signedUrl(app.url, owner.username, slug, 'ogg'),
    );
    const plain = await fetch(`${app.url}/listen/${owner.username}/${slug}.ogg`, {
      method: 'HEAD',
    });
    expect(plain.status).toBe(403);
    expect(await elementToneProminence(page, TONE_HZ)).toBeGreaterThan(20);
    // The server counts the HTTP listener like any other.
    await until(
      'the HTTP listener to be counted',
      () => getStation(app.url, stationId),
      (s) => s.viewerCount === 1,
      15_000,
    );

    // Stop, then Play again: WebRTC is tried first again, then the HTTP stream again.
    await page.getByTestId('play-button').click();
    await until(
      'the HTTP listener to leave',
      () => getStation(app.url, stationId),
      (s) => s.viewerCount === 0,
      15_000,
    );
    const offersBefore = whepOffers.length;
    await page.getByTestId('play-button').click();
    await until(
      'a new WebRTC attempt',
      async () => whepOffers.length,
      (n) => n > offersBefore,
      15_000,
    );
    await page.locator('[data-testid=player-http]').waitFor();
    expect(await elementToneProminence(page, TONE_HZ)).toBeGreaterThan(20);
    expect(problems.filter((p) => !/ICE|WebRTC|whep/i.test(p))).toEqual([]);
    await page.close();
  }, 120_000);

  it('plays the MP3 stream in a browser that cannot play Ogg/Opus', async () => {
    await until(
      'the previous listener to leave',
      () => getStation(app.url, stationId),
      (s) => s.viewerCount === 0,
      15_000,
    );
    const page = await browser.newPage();
    const problems = watchProblems(page);
    // What Safari before Opus in <audio> answers: no to Ogg, yes to MP3.
    await page.addInitScript(() => {
      const real = HTMLMediaElement.prototype.canPlayType;
      HTMLMediaElement.prototype.canPlayType = function (type: string) {
        return /ogg|opus/i.test(type) ? '' : real.call(this, type);
      };
    });
    const streams: string[] = [];
    page.on('request', (r) => {
      // What the audio element opens (the station page also asks the playlist whether the plain
      // URL is public).
      if (new URL(r.url()).pathname.startsWith('/listen/') && r.resourceType() === 'media')
        streams.push(new URL(r.url()).pathname);
    });
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    expect(
      await page.evaluate(() => [
        document.createElement('audio').canPlayType('audio/ogg; codecs="opus"'),
        document.createElement('audio').canPlayType('audio/mpeg'),
      ]),
    ).toEqual(['', expect.stringMatching(/maybe|probably/)]);
    await page.getByTestId('play-button').click();
    await page.locator('[data-testid=player][data-state=live]').waitFor();
    await page.locator('[data-testid=player-http]').waitFor();
    expect(await page.locator(AUDIO).getAttribute('src')).toMatch(
      signedUrl(app.url, owner.username, slug, 'mp3'),
    );
    expect(await elementToneProminence(page, TONE_HZ)).toBeGreaterThan(20);
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.every((p) => p.endsWith('.mp3'))).toBe(true);
    await until(
      'the MP3 listener to be counted',
      () => getStation(app.url, stationId),
      (s) => s.viewerCount === 1,
      15_000,
    );
    expect(problems.filter((p) => !/ICE|WebRTC|whep/i.test(p))).toEqual([]);
    await page.close();
  }, 90_000);

  it('says the join failed and offers a retry when the HTTP stream does not play either, instead of going round for ever', async () => {
    await until(
      'the previous listener to leave',
      () => getStation(app.url, stationId),
      (s) => s.viewerCount === 0,
      15_000,
    );
    const page = await browser.newPage();
    // WebRTC cannot connect (no UDP), and the HTTP stream does not come either (a proxy that
    // cuts long downloads)
    await page.route('**/listen/**', (route) => route.abort('connectionreset'));
    const asked = { whep: 0, stream: 0 };
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (r.method() === 'POST' && path.startsWith('/whep/')) asked.whep++;
      if (path.startsWith('/listen/')) asked.stream++;
    });
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    await page.getByTestId('play-button').click();
    await page.locator('[data-testid=player][data-state=error]').waitFor({ timeout: 60_000 });
    expect(asked.stream).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('player-state').textContent()).toContain(
      "Couldn't connect to the live audio",
    );
    expect(await page.getByTestId('play-button').textContent()).toBe('Retry');
    await page.screenshot({ path: screenshotPath('player-http-fallback-failed') });
    // and it stays said: no new session, no new stream request, until the listener asks
    const then = { ...asked };
    const polls = { n: 0 };
    page.on('request', (r) => {
      if (/\/api\/stations\/[^/]+$/.test(new URL(r.url()).pathname)) polls.n++;
    });
    await until(
      'two more station polls',
      async () => polls.n,
      (n) => n >= 2,
      20_000,
    );
    expect(await page.locator('[data-testid=player]').getAttribute('data-state')).toBe('error');
    expect(asked).toEqual(then);

    // Retry: WebRTC is tried again
    await page.getByTestId('play-button').click();
    await until(
      'a new WebRTC attempt',
      async () => asked.whep,
      (n) => n > then.whep,
      15_000,
    );
    await page.close();
  }, 120_000);
});
