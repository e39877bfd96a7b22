/**
 * `<radio-player>` on another site (its own origin, the two-line embed under a strict CSP) when the
 * owner takes access away, against the real API with a live station (the CLI publishes a 440 Hz
 * tone): turning the station private tells the listener at once ("listening ends in 10 s") while
 * the audio goes on, then the stream stops and the player says it is private, with its password
 * form; revoking an invite cuts that listener within 5 s and the player says why, while another
 * invitee keeps playing.
 *
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Invite } from '@radiobroadcaster/contracts';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath, toneProminence } from '../support/browser.js';
import { type EmbedSite, startEmbedSite } from '../support/player-site.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
} from '../support/web-app.js';
import { waitUntil as until } from '../support/wait.js';

const HZ = 440;
const PLAYER = { hostSelector: 'radio-player', audioSelector: 'audio' };
/** How far the tone stands above the spectrum's median when it plays (dB); silence is far below. */
const HEARD_DB = 20;

describe('<radio-player> on another site when access is taken away', () => {
  let app: TestApp;
  let browser: Browser;
  let site: EmbedSite;
  let owner: TestUser;
  let stationId: string;
  let ref: string;
  let cli: CliBroadcast;
  const contexts: BrowserContext[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { ...owner.auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
    return res;
  };

  /** A listener's browser on the embedding site (a fresh context: no stored grant). */
  const listener = async (attrs: string, viewport = { width: 1280, height: 800 }) => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${site.origin('localhost')}/?attrs=${encodeURIComponent(attrs)}`);
    return page;
  };
  const state = (page: Page) =>
    page.evaluate(
      () => (document.querySelector('radio-player') as unknown as { state: string }).state,
    );
  const message = (page: Page) =>
    page.evaluate(
      () =>
        document.querySelector('radio-player')?.shadowRoot?.querySelector('.message')
          ?.textContent ?? '',
    );
  const heard = async (page: Page, ms = 1500) =>
    (await toneProminence(page, PLAYER, HZ, ms)) > HEARD_DB;
  /** Presses Play and waits until the tone is heard. */
  const play = async (page: Page, who: string) => {
    const button = page.locator('radio-player').locator('button.play');
    await until(() => button.isEnabled().catch(() => false), 20_000, `${who}: Play offered`);
    await button.click();
    await until(async () => (await state(page)) === 'live', 30_000, `${who}: live`);
    await until(() => heard(page), 20_000, `${who}: the tone heard`);
  };

  beforeAll(async () => {
    app = await startWebApp();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Parish Radio' });
    stationId = created.station.id;
    ref = `${owner.username}/${created.station.slug}`;
    // the embedding site is on the owner's allowed domains (a private station embeds only there)
    await api('POST', '/api/me/allowed-domains', { domain: 'localhost' });
    site = await startEmbedSite(app.url);
    [browser, cli] = await Promise.all([
      launchChromium(),
      cliBroadcastTone({
        server: app.url,
        station: ref,
        token: created.streamToken.token,
        hz: HZ,
        timeoutMs: 30_000,
      }),
    ]);
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await cli?.stop();
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  it('a station turned private: the listener is told, hears about 10 s more, then the stream stops and the player says it is private', async () => {
    const page = await listener(`station="${ref}"`);
    await play(page, 'the listener');

    await api('POST', '/api/stations/update', { stationId, visibility: 'private' });
    const t0 = Date.now();
    // told within a poll or two, while the audio goes on
    await until(
      async () =>
        /^This station is now private: listening ends in \d+ s\./.test(await message(page)),
      8000,
      'the notice in the player',
    );
    const told = Date.now() - t0;
    const shown = Number(/ends in (\d+) s/.exec(await message(page))![1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(10);
    expect(await message(page)).toContain('Open your invite link, or enter its password.');
    await page
      .locator('radio-player')
      .screenshot({ path: screenshotPath('private-embed-notice-1280') });
    expect(await heard(page)).toBe(true);
    // the countdown runs
    await until(
      async () => {
        const n = /ends in (\d+) s/.exec(await message(page));
        return n !== null && Number(n[1]) < shown;
      },
      5000,
      'the countdown going down',
    );

    // then it stops: the private state with its password form, and no more tone
    await until(async () => (await state(page)) === 'private', 25_000, 'the private state');
    const ended = Date.now() - t0;
    process.stdout.write(
      `notice shown after ${told} ms (${shown} s left); listening ended after ${ended} ms\n`,
    );
    expect(ended).toBeGreaterThanOrEqual(8000);
    expect(await message(page)).toBe(
      'This is a private station. Open your invite link, or enter its password.',
    );
    expect(await page.locator('radio-player').locator('.unlock').isVisible()).toBe(true);
    expect(await heard(page, 1000)).toBe(false);
    await page
      .locator('radio-player')
      .screenshot({ path: screenshotPath('private-embed-ended-1280') });
  }, 120_000);

  it('a revoked invite: that listener on another site is cut within 5 s and told why; another keeps playing', async () => {
    const invite = async (label: string) =>
      (await (await api('POST', '/api/stations/invites', { stationId, label })).json()) as Invite;
    const [a, b] = [await invite('members'), await invite('choir')];
    const pa = await listener(`station="${ref}" invite="${a.token}"`);
    const pb = await listener(`station="${ref}" invite="${b.token}"`, { width: 390, height: 844 });
    await play(pa, 'invitee A');
    await play(pb, 'invitee B');

    await api('DELETE', `/api/stations/invites/${a.id}`);
    const t0 = Date.now();
    await until(async () => !(await heard(pa, 400)), 5000, 'invitee A silenced');
    const silenced = Date.now() - t0;
    process.stdout.write(`revoked embed listener silenced after ${silenced} ms\n`);
    expect(silenced).toBeLessThan(5000);
    await until(async () => (await state(pa)) === 'private', 20_000, 'the revoked state');
    expect(await message(pa)).toBe('Your access to this private station was revoked.');
    expect(await heard(pb)).toBe(true);
    await pb
      .locator('radio-player')
      .screenshot({ path: screenshotPath('private-embed-invitee-390') });
    await pa
      .locator('radio-player')
      .screenshot({ path: screenshotPath('private-embed-revoked-1280') });
  }, 120_000);
});
