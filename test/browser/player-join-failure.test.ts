/**
 * `<radio-player>` in Debian's Chromium when a listener's join does not get through: the SFU's WHEP
 * answers reach the browser with their DTLS fingerprint garbled, so every session fails its handshake,
 * in a browser that cannot play the HTTP stream either (its `canPlayType` says no to Ogg/Opus and
 * MP3). The player tries a fresh session once, then says what happened and offers a
 * retry; the retry, on a network that now lets the connection through, plays the station.
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import {
  launchChromium,
  screenshotPath,
  shootBothSizes,
  toneProminence,
} from '../support/browser.js';
import {
  type EmbedSite,
  type LoggedRequest,
  type WatchedPage,
  logServerRequests,
  startEmbedSite,
  watchedPage,
} from '../support/player-site.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
  until,
} from '../support/web-app.js';

const TONE_HZ = 660;
const FAILED = "Couldn't connect to the live audio";

describe('<radio-player>: a join that does not get through', () => {
  let app: TestApp;
  let browser: Browser;
  let site: EmbedSite;
  let server: { log: LoggedRequest[]; stop: () => void };
  let owner: TestUser;
  let ref: string;
  let cli: CliBroadcast;
  let w: WatchedPage;

  beforeAll(async () => {
    app = await startWebApp();
    server = logServerRequests(app.app.getHttpServer() as Server);
    site = await startEmbedSite(app.url);
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Far Away FM', slug: 'far-away' });
    ref = `${owner.username}/far-away`;
    [browser, cli] = await Promise.all([
      launchChromium(),
      cliBroadcastTone({
        server: app.url,
        station: ref,
        token: created.streamToken.token,
        hz: TONE_HZ,
        timeoutMs: 30_000,
      }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await w?.page.goto('about:blank').catch(() => undefined);
    await w?.context.close().catch(() => undefined);
    server?.stop();
    await cli?.stop();
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  const inPlayer = <T>(page: Page, fn: (root: ShadowRoot) => T): Promise<T> =>
    page.evaluate(
      // Passed as source: a function value would not survive the trip into the page.
      `(${fn.toString()})(document.querySelector('radio-player').shadowRoot)`,
    ) as Promise<T>;
  const playerState = (page: Page) =>
    page.locator('radio-player').evaluate((el) => (el as unknown as { state: string }).state);
  const whepPosts = () =>
    server.log.filter((r) => r.method === 'POST' && /\/whep\//.test(r.path)).length;

  it('retries once on a fresh session, then says what happened and offers a retry that plays', async () => {
    w = await watchedPage(await browser.newContext());
    const { page } = w;
    // a browser that plays neither Ogg/Opus nor MP3 over HTTP: no fallback stream
    await page.addInitScript(() => {
      HTMLMediaElement.prototype.canPlayType = () => '';
    });
    // the connection does not come up: the answers reach the browser with the DTLS fingerprint
    // garbled (as a middlebox that mangles them would), so each session fails its handshake
    let blocked = true;
    await page.route('**/*', async (route) => {
      const req = route.request();
      if (
        !blocked ||
        req.method() !== 'POST' ||
        !/application\/sdp/.test(req.headers()['content-type'] ?? '')
      ) {
        await route.fallback();
        return;
      }
      const res = await route.fetch();
      const body = (await res.text()).replace(
        /^(a=fingerprint:\S+ )(\S+)/gm,
        (_, alg: string, fp: string) => alg + fp.replace(/[0-9A-F]/gi, '0'),
      );
      await route.fulfill({ response: res, body });
    });
    await page.goto(`${site.origin('localhost')}/?attrs=${encodeURIComponent(`station="${ref}"`)}`);
    const play = page.locator('radio-player').locator('button.play');
    await until(
      'the station live in the player',
      () => inPlayer(page, (r) => r.querySelector('.message')?.textContent),
      (t) => t === 'Live now. Press play to listen.',
      15_000,
    );
    await play.click();
    await until(
      'the player to report the failure',
      () => playerState(page),
      (s) => s === 'error',
      60_000,
    );
    // two sessions: the first, and one fresh retry; then nothing more until the listener asks
    expect(whepPosts()).toBe(2);
    const shown = await inPlayer(page, (r) => ({
      message: r.querySelector('.message')?.textContent,
      label: r.querySelector('button.play')?.getAttribute('aria-label'),
      labelVisible: !(r.querySelector('.play-label') as HTMLElement | null)?.hidden,
      labelText: r.querySelector('.play-label')?.textContent,
      disabled: (r.querySelector('button.play') as HTMLButtonElement | null)?.disabled,
    }));
    expect(shown).toEqual({
      message: expect.stringContaining(FAILED),
      label: 'Retry',
      labelVisible: true,
      labelText: 'Retry',
      disabled: false,
    });
    const shot = screenshotPath('player-join-failed');
    await page.locator('radio-player').screenshot({ path: shot });
    // the page as a listener sees it, desktop and phone (docs/screenshots/player-join-failed-*)
    await shootBothSizes(page, 'player-join-failed');
    if (process.env.RB_SHOTS_DIR) {
      mkdirSync(process.env.RB_SHOTS_DIR, { recursive: true });
      copyFileSync(shot, `${process.env.RB_SHOTS_DIR}/player-join-failed.png`);
    }
    // it stays said (the station polls go on, and neither hide it nor start a session)
    const polls = async () => server.log.filter((r) => /\/api\/stations\//.test(r.path)).length;
    const pollsThen = await polls();
    await until('two more station polls', polls, (n) => n >= pollsThen + 2, 10_000);
    expect(await playerState(page)).toBe('error');
    expect(whepPosts()).toBe(2);

    // the network lets it through now; the listener clicks Retry
    blocked = false;
    await play.click();
    await until(
      'live after the retry',
      () => playerState(page),
      (s) => s === 'live',
      30_000,
    );
    expect(whepPosts()).toBe(3);
    expect(
      await toneProminence(
        page,
        { hostSelector: 'radio-player', audioSelector: 'audio' },
        TONE_HZ,
        3000,
        20,
      ),
    ).toBeGreaterThan(20);
    expect(await inPlayer(page, (r) => r.querySelector('.message')?.textContent)).toBe(
      'Playing live',
    );
  }, 150_000);
});
