/**
 * A private station in Chromium against the real API with a live station (the CLI publishes a
 * 440 Hz tone): a stranger is refused on the station page, the embed and `/listen`; an invite link
 * plays; revoking it silences that listener within 5 s while another keeps playing; the player's
 * password form admits the right password and rate-limits wrong ones; the studio's panel.
 *
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Invite } from '@radiobroadcaster/contracts';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import {
  audioLevel,
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
} from '../support/web-app.js';
import { waitUntil as until } from '../support/wait.js';

const AUDIO = '[data-testid=station-audio]';
const SHOTS = '/work/wt/_shots/private';

describe('a private station in the browser', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  let slug: string;
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
  const invite = async (label: string) =>
    (await (await api('POST', '/api/stations/invites', { stationId, label })).json()) as Invite;
  /** A stranger's browser: a fresh context (no cookies, no stored grant). */
  const stranger = async (viewport = { width: 1280, height: 800 }): Promise<Page> => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    return context.newPage();
  };
  const playerState = (page: Page) => page.getAttribute('[data-testid=player-state]', 'data-state');

  beforeAll(async () => {
    app = await startWebApp({ RATE_LIMIT_STATION_PASSWORD_PER_MINUTE: '3' });
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Sunday Service' });
    stationId = created.station.id;
    slug = created.station.slug;
    await api('POST', '/api/stations/update', { stationId, visibility: 'private' });
    [browser, cli] = await Promise.all([
      launchChromium(),
      cliBroadcastTone({
        server: app.url,
        station: `${owner.username}/${slug}`,
        token: created.streamToken.token,
        hz: 440,
        timeoutMs: 30_000,
      }),
    ]);
  }, 90_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await cli?.stop();
    await browser?.close();
    await app?.close();
  });

  it('refuses a stranger on the station page, the embed and /listen', async () => {
    const page = await stranger();
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    // the public fields show
    await page.getByTestId('station-name').filter({ hasText: 'Sunday Service' }).waitFor();
    await page.getByTestId('play-button').click();
    await until(async () => (await playerState(page)) === 'private', 15_000, 'private state');
    await page.getByTestId('private-unlock').waitFor();
    expect(await page.getByTestId('player-state').textContent()).toContain('Private station');
    await page.screenshot({ path: `${SHOTS}/station-private-1280.png` });

    const embed = await stranger();
    await embed.goto(`${app.url}/embed/${owner.username}/${slug}`);
    await embed.locator('radio-player').waitFor();
    await until(
      async () =>
        (await embed
          .locator('radio-player')
          .evaluate((el) => (el as HTMLElement & { state: string }).state)) !== 'idle' ||
        (await embed
          .locator('radio-player .play')
          .isEnabled()
          .catch(() => false)),
      15_000,
      'the embed ready',
    );
    await embed.locator('radio-player .play').click();
    await until(
      async () =>
        (await embed
          .locator('radio-player')
          .evaluate((el) => (el as HTMLElement & { state: string }).state)) === 'private',
      15_000,
      'the embed in its private state',
    );
    expect(await embed.locator('radio-player .message').textContent()).toBe(
      'This is a private station. Open your invite link, or enter its password.',
    );
    expect(await embed.locator('radio-player .unlock').isVisible()).toBe(true);
    await embed.screenshot({ path: `${SHOTS}/embed-private.png` });

    const listen = await page.goto(`${app.url}/listen/${owner.username}/${slug}.ogg`);
    expect(listen?.status()).toBe(403);
    expect(await listen?.json()).toMatchObject({ error: 'PRIVATE_STATION' });
  }, 60_000);

  it('an invite link plays; revoking it silences that listener within 5 s while another keeps playing', async () => {
    const [a, b] = [await invite('band'), await invite('family')];
    const pa = await stranger();
    const pb = await stranger({ width: 390, height: 844 });
    for (const [page, i] of [
      [pa, a],
      [pb, b],
    ] as const) {
      await page.goto(i.url);
      await page.getByTestId('play-button').click();
      await until(async () => (await playerState(page)) === 'live', 20_000, `${i.label} playing`);
      await until(
        async () => (await audioLevel(page, AUDIO, 1000)) > -40,
        15_000,
        `${i.label} heard`,
      );
    }
    await pb.screenshot({ path: `${SHOTS}/station-invite-live-390.png` });

    // Each listener let in sees their own podcast and calendar addresses, which work for them
    const feedOf = async (page: Page) => {
      const code = page.getByTestId('private-feed-podcast');
      await code.waitFor();
      return (await code.textContent())!.replace(/\s/g, '');
    };
    const [feedA, feedB] = [await feedOf(pa), await feedOf(pb)];
    expect(feedA).toMatch(/\/podcast\.xml\?key=/);
    expect(feedA).not.toBe(feedB);
    expect((await fetch(feedA)).status).toBe(200);
    await pa
      .getByTestId('private-feeds')
      .screenshot({ path: `${SHOTS}/station-private-feeds-1280.png` });
    await pb
      .getByTestId('private-feeds')
      .screenshot({ path: `${SHOTS}/station-private-feeds-390.png` });

    await api('DELETE', `/api/stations/invites/${a.id}`);
    const t0 = Date.now();
    await until(
      async () => (await audioLevel(pa, AUDIO, 400)) < -60,
      5000,
      'the revoked listener silenced',
    );
    process.stdout.write(`revoked listener silenced after ${Date.now() - t0} ms\n`);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await audioLevel(pb, AUDIO, 1500)).toBeGreaterThan(-40);
    // it ends up told why
    await until(async () => (await playerState(pa)) === 'private', 30_000, 'revoked state');
    expect(await pa.getByTestId('player-state').textContent()).toContain('revoked');
    // and their feed address stops working; the other listener's goes on
    expect((await fetch(feedA)).status).toBe(403);
    expect((await fetch(feedB)).status).toBe(200);
  }, 90_000);

  it("the player's password form admits the right password and rate-limits wrong ones", async () => {
    await api('POST', '/api/stations/password', { stationId, password: 'amazing-grace' });
    const right = await stranger();
    await right.goto(`${app.url}/${owner.username}/${slug}`);
    await right.getByTestId('play-button').click();
    await right.getByTestId('private-password').fill('amazing-grace');
    await right.getByTestId('private-submit').click();
    await until(async () => (await playerState(right)) === 'live', 20_000, 'admitted by password');
    await until(async () => (await audioLevel(right, AUDIO, 1000)) > -40, 15_000, 'heard');

    const wrong = await stranger();
    await wrong.goto(`${app.url}/${owner.username}/${slug}`);
    await wrong.getByTestId('play-button').click();
    await wrong.getByTestId('private-unlock').waitFor();
    const tryPassword = async (p: string) => {
      await wrong.getByTestId('private-password').fill(p);
      await wrong.getByTestId('private-submit').click();
    };
    await tryPassword('wrong-1');
    await until(
      async () =>
        ((await wrong.getByTestId('player-state').textContent()) ?? '').includes('Wrong password'),
      15_000,
      'wrong password said',
    );
    let limited = false;
    for (let i = 2; i <= 5 && !limited; i++) {
      await tryPassword(`wrong-${i}`);
      await until(
        async () =>
          /Wrong password|Too many password attempts/.test(
            (await wrong.getByTestId('player-state').textContent()) ?? '',
          ),
        15_000,
        'an answer',
      );
      limited = ((await wrong.getByTestId('player-state').textContent()) ?? '').includes(
        'Too many password attempts',
      );
    }
    expect(limited).toBe(true);
    await wrong.screenshot({ path: `${SHOTS}/station-password-limited-1280.png` });
  }, 90_000);

  it('an unlisted station is absent from the home page and the profile, opens by its link, and carries noindex', async () => {
    const made = await createStation(app.url, owner, { name: 'Quiet Corner' });
    const listed = await createStation(app.url, owner, { name: 'Open Mic' });
    await api('POST', '/api/stations/update', {
      stationId: made.station.id,
      visibility: 'unlisted',
    });
    const page = await stranger();
    for (const path of ['/', `/${owner.username}`]) {
      await page.goto(`${app.url}${path}`);
      await page.getByText('Open Mic').first().waitFor();
      expect([path, await page.getByText('Quiet Corner').count()]).toEqual([path, 0]);
    }
    expect(listed.station.name).toBe('Open Mic');
    await page.goto(`${app.url}/${owner.username}/${made.station.slug}`);
    await page.getByTestId('station-name').filter({ hasText: 'Quiet Corner' }).waitFor();
    expect(await page.locator('meta[name=robots]').getAttribute('content')).toBe('noindex');
  }, 60_000);

  it("shows the owner's studio panel", async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const context = await browser.newContext({ viewport });
      contexts.push(context);
      await context.addCookies([
        { name: 'rb_session', value: owner.token, url: app.url, httpOnly: true },
      ]);
      const page = await context.newPage();
      await page.goto(`${app.url}/studio?station=${stationId}`);
      const card = page.getByTestId('access-card');
      await card.waitFor();
      await until(
        () => page.getByTestId('visibility-private').isChecked(),
        20_000,
        'the private switch on',
      );
      await page.getByTestId('invite').first().waitFor();
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({ path: `${SHOTS}/studio-access-${viewport.width}.png` });
      if (viewport.width !== 1280) continue;
      // the schedule card links the owner's own calendar address: a calendar app (no cookie)
      // subscribes to it, while the station's public .ics refuses
      const ics = page.getByTestId('schedule-ics');
      await ics.waitFor();
      expect(await ics.textContent()).toBe('your private iCalendar feed');
      const href = new URL((await ics.getAttribute('href'))!, app.url);
      expect(href.searchParams.get('key')).toBeTruthy();
      const keyed = await fetch(href);
      expect(keyed.status).toBe(200);
      expect(await keyed.text()).toContain('BEGIN:VCALENDAR');
      href.search = '';
      expect((await fetch(href)).status).toBe(403);
    }
  }, 60_000);
});
