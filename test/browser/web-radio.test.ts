/**
 * The studio's "Broadcast from other software" panel in Debian's Chromium against the real API
 * serving the built app: the stream key hidden until revealed, what OBS (WHIP), BUTT/Mixxx/liquidsoap
 * (Icecast) and ffmpeg need, copy buttons, and a rotation that asks first and then shows a new key
 * the server accepts (the old one no longer). Screenshots at 1280×800 and 390×844. Needs
 * `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BroadcastSettings } from '@radiobroadcaster/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { StreamKeysService } from '../../apps/api/src/radio/stream-keys.service.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { type Icecast, icecastSources, startIcecast } from '../support/icecast.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
  until,
  watchProblems,
} from '../support/web-app.js';

async function settingsOf(app: TestApp, user: TestUser, id: string): Promise<BroadcastSettings> {
  const res = await fetch(`${app.url}/api/stations/${id}/broadcast-settings`, {
    headers: user.auth,
  });
  return (await res.json()) as BroadcastSettings;
}

describe('studio: broadcast from other software', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: TestUser;
  let stationId: string;
  let problems: string[];
  let streamToken: string;
  let icecast: Icecast | undefined;
  let broadcast: CliBroadcast | undefined;

  beforeAll(async () => {
    // Relays target loopback servers here (a stock icecast2, a closed port): the operator's switch.
    app = await startWebApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    browser = await launchChromium();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Night Owls' });
    stationId = created.station.id;
    streamToken = created.streamToken.token;
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(`${app.url}/signin?redirect=${encodeURIComponent('/studio')}`);
    await page.getByTestId('field-email').fill(owner.email);
    await page.getByTestId('field-password').fill(owner.password);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('other-software').waitFor();
  }, 60_000);

  afterAll(async () => {
    await broadcast?.stop();
    await icecast?.stop();
    await browser?.close();
    await app?.close();
  });

  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  it('hides the key until revealed and copies it without revealing', async () => {
    const { streamKey, whipUrl } = await settingsOf(app, owner, stationId);
    const panel = page.getByTestId('other-software');
    expect(await panel.getByRole('heading').first().textContent()).toBe(
      'Broadcast from other software',
    );
    const key = panel.getByTestId('stream-key');
    expect(await key.textContent()).not.toContain('rbsk_');
    expect(await panel.textContent()).not.toContain(streamKey!);

    await panel.getByTestId('stream-key-copy').click();
    expect(await clipboard()).toBe(streamKey);
    expect(await panel.getByTestId('stream-key-copy').textContent()).toBe('Copied');

    await panel.getByTestId('stream-key-reveal').click();
    expect(await key.textContent()).toBe(streamKey);
    expect(await panel.getByTestId('stream-key-reveal').getAttribute('aria-pressed')).toBe('true');

    // OBS: the WHIP server and the key as its bearer token.
    expect(await panel.getByTestId('obs-server').textContent()).toBe(whipUrl);
    expect(await panel.getByTestId('obs-token').textContent()).toBe(streamKey);
    await panel.getByTestId('obs-server-copy').click();
    expect(await clipboard()).toBe(whipUrl);

    await panel.getByTestId('stream-key-reveal').click();
    expect(await key.textContent()).not.toContain('rbsk_');
  });

  it('gives BUTT, Mixxx and liquidsoap the server, port, mount, user and password', async () => {
    const s = await settingsOf(app, owner, stationId);
    const panel = page.getByTestId('other-software');
    await panel.getByTestId('software-tab-icecast').click();
    expect(await panel.getByTestId('software-tab-icecast').getAttribute('aria-selected')).toBe(
      'true',
    );
    const base = new URL(app.url);
    expect(await panel.getByTestId('icecast-host').textContent()).toBe(base.hostname);
    expect(await panel.getByTestId('icecast-port').textContent()).toBe(base.port);
    expect(await panel.getByTestId('icecast-mount').textContent()).toBe(
      `/ingest/${owner.username}/night-owls`,
    );
    expect(await panel.getByTestId('icecast-user').textContent()).toBe('source');
    // Hidden on screen, the real key on the clipboard.
    expect(await panel.getByTestId('icecast-password').textContent()).not.toContain('rbsk_');
    await panel.getByTestId('icecast-password-copy').click();
    expect(await clipboard()).toBe(s.streamKey);
    await panel.getByTestId('liquidsoap-snippet-copy').click();
    const liq = await clipboard();
    expect(liq).toContain('output.icecast(%ogg(%opus');
    expect(liq).toContain(`password="${s.streamKey}"`);
    expect(liq).toContain(`mount="/ingest/${owner.username}/night-owls"`);
    expect(liq).toContain(`port=${base.port}`);
  });

  it('gives a ready ffmpeg command', async () => {
    const s = await settingsOf(app, owner, stationId);
    const panel = page.getByTestId('other-software');
    // Keyboard: arrows move between the tabs.
    await panel.getByTestId('software-tab-icecast').focus();
    await page.keyboard.press('ArrowRight');
    expect(await panel.getByTestId('software-tab-ffmpeg').getAttribute('aria-selected')).toBe(
      'true',
    );
    expect(await panel.getByTestId('ffmpeg-command').textContent()).not.toContain('rbsk_');
    await panel.getByTestId('ffmpeg-command-copy').click();
    const base = new URL(app.url);
    expect(await clipboard()).toBe(
      'ffmpeg -re -i music.mp3 -c:a libopus -b:a 128k -content_type audio/ogg -f ogg ' +
        `icecast://source:${s.streamKey}@${base.hostname}:${base.port}/ingest/${owner.username}/night-owls`,
    );
  });

  it('rotates the key only after a confirmation that says a live source is cut off', async () => {
    const before = (await settingsOf(app, owner, stationId)).streamKey!;
    const panel = page.getByTestId('other-software');
    await panel.getByTestId('stream-key-rotate').click();
    const dialog = page.getByTestId('rotate-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('cut off');
    await page.screenshot({ path: screenshotPath('studio-rotate-key-1280x800') });
    await dialog.getByTestId('rotate-dialog-cancel').click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await settingsOf(app, owner, stationId)).streamKey).toBe(before);

    await panel.getByTestId('stream-key-rotate').click();
    await dialog.getByTestId('rotate-dialog-confirm').click();
    await page.getByText('New stream key ready').waitFor();
    const after = (await settingsOf(app, owner, stationId)).streamKey!;
    expect(after).not.toBe(before);
    // The new key is shown at once (to paste into the software); the server takes only it.
    expect(await panel.getByTestId('stream-key').textContent()).toBe(after);
    const keys = app.app.get(StreamKeysService);
    expect(await keys.verify(stationId, before)).toBeNull();
    expect(await keys.verify(stationId, after)).not.toBeNull();
    await panel.getByTestId('stream-key-reveal').click();
  });

  it('fits at 1280×800 and 390×844 (screenshots)', async () => {
    const panel = page.getByTestId('other-software');
    await panel.getByTestId('software-tab-icecast').click();
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: screenshotPath('studio-other-software-1280x800') });
    await page.setViewportSize({ width: 390, height: 844 });
    await panel.scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await panel.screenshot({ path: screenshotPath('studio-other-software-390x844') });
    await panel.getByTestId('software-tab-ffmpeg').click();
    await panel.screenshot({ path: screenshotPath('studio-other-software-ffmpeg-390x844') });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  });

  it('adds a relay (password never shown), pauses and removes it with a confirmation', async () => {
    const card = page.getByTestId('relays');
    await card.scrollIntoViewIfNeeded();
    await card.getByTestId('relays-empty').waitFor();
    await card.getByTestId('field-url').fill('ftp://nope');
    await card.getByTestId('field-mount').fill('/live.ogg');
    await card.getByTestId('field-password').fill('pw-very-secret');
    await card.getByTestId('relay-add').click();
    await card.getByTestId('field-error-url').waitFor();
    expect(await card.getByTestId('relay').count()).toBe(0);

    await card.getByTestId('relay-kind').selectOption('shoutcast');
    expect(await card.getByTestId('relay-format').isDisabled()).toBe(true);
    expect(await card.getByTestId('relay-format').inputValue()).toBe('mp3');
    await card.getByTestId('relay-kind').selectOption('icecast');

    await card.getByTestId('field-url').fill('http://127.0.0.1:9');
    await card.getByTestId('relay-add').click();
    const relay = card.getByTestId('relay');
    await relay.waitFor();
    await page.getByText('Relay added').waitFor();
    expect(await relay.getByTestId('relay-state').textContent()).toBe('Starts when you go live');
    expect(await page.content()).not.toContain('pw-very-secret');
    // The form is empty again for the next one.
    expect(await card.getByTestId('field-password').inputValue()).toBe('');

    await relay.getByTestId('relay-toggle').click();
    await until(
      'the relay to show as paused',
      () => relay.getByTestId('relay-state').textContent(),
      (t) => t === 'Paused',
    );
    await relay.getByTestId('relay-remove').click();
    const dialog = page.getByTestId('relay-remove-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('127.0.0.1:9/live.ogg');
    await dialog.getByTestId('relay-remove-dialog-confirm').click();
    await card.getByTestId('relays-empty').waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it('shows a relay pushing to a stock icecast2 while live, then a failing one retrying', async () => {
    icecast = await startIcecast();
    broadcast = await cliBroadcastTone({
      server: app.url,
      station: `${owner.username}/night-owls`,
      token: streamToken,
      hz: 440,
      timeoutMs: 30_000,
    });
    const card = page.getByTestId('relays');
    await card.getByTestId('field-url').fill(icecast.url);
    await card.getByTestId('field-mount').fill('/night.ogg');
    await card.getByTestId('field-password').fill(icecast.sourcePassword);
    await card.getByTestId('relay-add').click();
    const relay = card.getByTestId('relay');
    await until(
      'the relay to show as pushing',
      () => relay.getByTestId('relay-state').textContent(),
      (t) => !!t?.startsWith('Pushing'),
      30_000,
    );
    await until(
      'icecast2 to serve the mount',
      async () => icecastSources(await icecast!.status()).map((s) => s.listenurl),
      (urls) => urls.some((u) => u.endsWith('/night.ogg')),
      15_000,
    );

    await card.getByTestId('field-url').fill(icecast.url);
    await card.getByTestId('field-mount').fill('/wrong.ogg');
    await card.getByTestId('field-password').fill('wrong-password');
    await card.getByTestId('relay-add').click();
    const failing = card.locator('[data-testid=relay][data-state=retrying]');
    await failing.waitFor({ timeout: 30_000 });
    expect(await failing.getByTestId('relay-error').textContent()).toContain(
      'refused the user name or password',
    );
    expect(await failing.getByTestId('relay-state').textContent()).toMatch(
      /^Retrying( in \d+ s|…)$/,
    );
    // The sticky site header would be stitched over a screenshot taller than the viewport.
    await page.addStyleTag({ content: '.site-header { position: static !important; }' });
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: screenshotPath('studio-relays-1280x800') });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await card.screenshot({ path: screenshotPath('studio-relays-390x844') });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  }, 90_000);

  it('shows the HTTP stream URL in the studio and on the station page; the switch makes it private', async () => {
    const card = page.getByTestId('public-stream');
    const url = (await card.getByTestId('stream-url').textContent())!;
    expect(url).toMatch(new RegExp(`^${app.url}/listen/${owner.username}/[^/]+\\.ogg$`));
    const slug = url
      .split('/')
      .at(-1)!
      .replace(/\.ogg$/, '');
    const stationPage = await context.newPage();
    await stationPage.goto(`${app.url}/${owner.username}/${slug}`);
    expect(await stationPage.getByTestId('stream-url').textContent()).toBe(url);
    await stationPage.close();
    // What VLC sends: no Origin, no Referer.
    const vlc = () => fetch(url, { method: 'HEAD' }).then((r) => r.status);
    expect([200, 404]).toContain(await vlc()); // allowed (404 only while the station is off the air)

    const toggle = card.getByTestId('public-stream-toggle');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await card.getByText('the plain URL is refused (radio apps and VLC too)').waitFor();
    await until(
      'the setting to be saved',
      () => settingsOf(app, owner, stationId),
      (st) => !st.publicStreamUrl,
      10_000,
    );
    await until('VLC to be refused', vlc, (status) => status === 403, 5000);
    const refused = await fetch(url.replace(/\.ogg$/, '.mp3'));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe('STREAM_NOT_PUBLIC');
    // The private link for VLC and radio apps: a signed playlist, which plays.
    const signed = (await card.getByTestId('signed-stream-url').textContent())!;
    expect(signed).toMatch(new RegExp(`^${app.url}/listen/${owner.username}/${slug}\\.m3u\\?t=`));
    expect((await fetch(signed)).status).toBe(200);
    // Listeners' page no longer offers the plain URL that would not play.
    const privatePage = await context.newPage();
    await privatePage.goto(`${app.url}/${owner.username}/${slug}`);
    await privatePage.getByTestId('embed-snippet').waitFor();
    await until(
      'the plain stream URL to leave the station page',
      () => privatePage.getByTestId('stream-url').count(),
      (n) => n === 0,
      10_000,
    );
    await privatePage.close();

    await toggle.check();
    await until('VLC to be allowed again', vlc, (status) => status !== 403, 5000);
    expect(problems).toEqual([]);
  }, 60_000);
});
