/**
 * The artwork-led `<radio-player>` in Debian's Chromium against the real API, a live station (the
 * CLI publishing a tone) with cover art: at the four documented embed sizes (350×300, 400×350,
 * 600×450, 800×600), light and dark, the cover shows from 400 px wide and every control stays inside;
 * playing, a level animation moves from the audio itself (an analyser on the stream) and the Media
 * Session carries the cover as artwork; asked for reduced motion, no animation runs. axe-core finds
 * nothing serious in the embed frame. Screenshots: artifacts/screenshots/player-art-*. Needs
 * `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { Station } from '@radiobroadcaster/contracts';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { seriousViolations } from '../support/axe.js';
import { launchChromium, screenshotPath, settled } from '../support/browser.js';
import { holdsFor } from '../support/wait.js';
import {
  REPO_ROOT,
  cliBroadcastTone,
  createStation,
  setNowPlaying,
  startWebApp,
  watchProblems,
  type CliBroadcast,
} from '../support/web-app.js';

const SIZES = [
  [350, 300],
  [400, 350],
  [600, 450],
  [800, 600],
] as const;

describe('<radio-player>: artwork, level animation, embed sizes', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let station: Station;
  let cli: CliBroadcast | undefined;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startWebApp(), launchChromium()]);
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Harbour Lights FM' });
    const res = await fetch(`${app.url}/api/stations/${created.station.id}/cover`, {
      method: 'PUT',
      headers: { ...owner.auth, 'Content-Type': 'image/png' },
      body: readFileSync(`${REPO_ROOT}/web/public/icons/icon-512.png`),
    });
    expect(res.status).toBe(200);
    station = (await res.json()) as Station;
    expect(station.coverUrl).toBeTruthy();
    await setNowPlaying(app.url, owner, {
      stationId: station.id,
      track: 'Slow Tide',
      artist: 'The Breakwaters',
    });
    cli = await cliBroadcastTone({
      server: app.url,
      station: `${owner.username}/${station.slug}`,
      token: created.streamToken.token,
      hz: 440,
      timeoutMs: 30_000,
    });
  }, 90_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await app?.close();
  });

  async function embed(
    theme: 'light' | 'dark',
    size: readonly [number, number],
    reducedMotion: 'reduce' | 'no-preference' = 'no-preference',
  ): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({
      viewport: { width: size[0], height: size[1] },
      reducedMotion,
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${app.url}/embed/${owner.username}/${station.slug}?theme=${theme}`);
    await page.waitForFunction(
      () =>
        document.querySelector('radio-player')?.shadowRoot?.querySelector('.track')?.textContent ===
        'Slow Tide',
    );
    return { page, problems };
  }

  /** Where each part sits: inside the player, or why not; and whether the cover shows. */
  function layout(page: Page) {
    return page.evaluate(() => {
      const el = document.querySelector('radio-player')!;
      const box = el.getBoundingClientRect();
      const root = el.shadowRoot!;
      const out: Record<string, string> = {
        size: `${Math.round(box.width)}x${Math.round(box.height)}`,
      };
      for (const sel of ['.badge', '.name', '.by', '.np', 'button.play', 'input.volume']) {
        const r = root.querySelector(sel)!.getBoundingClientRect();
        const inside =
          r.width > 0 &&
          r.height > 0 &&
          r.left >= box.left - 0.5 &&
          r.right <= box.right + 0.5 &&
          r.top >= box.top - 0.5 &&
          r.bottom <= box.bottom + 0.5;
        out[sel] = inside ? 'inside' : `out ${Math.round(r.top)} ${Math.round(r.bottom)}`;
      }
      const img = root.querySelector<HTMLImageElement>('.art img');
      const art = root.querySelector('.art')!.getBoundingClientRect();
      out.art =
        art.width > 0 && img && img.complete && img.naturalWidth > 0
          ? `cover ${art.width >= 100 ? 'large' : 'small'}`
          : 'none';
      return out;
    });
  }

  it('fills each embed size, with the cover from 400 px wide, light and dark', async () => {
    for (const theme of ['dark', 'light'] as const) {
      for (const size of SIZES) {
        const { page, problems } = await embed(theme, size);
        await page.waitForFunction(
          (wide) =>
            !wide ||
            !!document
              .querySelector('radio-player')
              ?.shadowRoot?.querySelector<HTMLImageElement>('.art img')?.naturalWidth,
          size[0] >= 400,
        );
        await settled(page);
        const got = await layout(page);
        expect(got).toEqual({
          size: `${size[0]}x${size[1]}`,
          '.badge': 'inside',
          '.name': 'inside',
          '.by': 'inside',
          '.np': 'inside',
          'button.play': 'inside',
          'input.volume': 'inside',
          art: size[0] >= 400 ? 'cover large' : 'none',
        });
        // The broadcaster named as everywhere on the site: display name and @username.
        expect(
          await page.evaluate(
            () =>
              document.querySelector('radio-player')!.shadowRoot!.querySelector('.by')!.textContent,
          ),
        ).toBe(`by ${station.broadcaster.name} (@${owner.username})`);
        if (theme === 'dark' && size[0] === 600) expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({
          path: screenshotPath(`player-art-${theme}-${size[0]}x${size[1]}`),
        });
        expect(problems).toEqual([]);
        await page.context().close();
      }
    }
  }, 180_000);

  it('playing, the level moves with the audio and the lock screen shows the cover', async () => {
    const { page, problems } = await embed('dark', [600, 450]);
    await page.locator('radio-player').locator('button.play').click();
    await page.waitForFunction(
      () =>
        document.querySelector('radio-player')?.getAttribute('data-state') === 'live' ||
        document.querySelector('radio-player')?.shadowRoot?.querySelector('.card.playing') !== null,
      undefined,
      { timeout: 60_000 },
    );
    // The analyser hears the tone: the canvas marks itself active once bars rise.
    await page.waitForFunction(
      () =>
        document
          .querySelector('radio-player')
          ?.shadowRoot?.querySelector('canvas.viz')
          ?.hasAttribute('data-active'),
      undefined,
      { timeout: 60_000 },
    );
    expect(
      await page.evaluate(() => navigator.mediaSession.metadata?.artwork.map((a) => a.src)),
    ).toEqual([new URL(station.coverUrl!, app.url).href]);
    expect(await page.evaluate(() => navigator.mediaSession.metadata?.title)).toBe('Slow Tide');
    await settled(page);
    await page.screenshot({ path: screenshotPath('player-art-playing-dark-600x450') });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('asked for reduced motion, nothing animates while playing', async () => {
    const { page, problems } = await embed('dark', [600, 450], 'reduce');
    await page.locator('radio-player').locator('button.play').click();
    await page.waitForFunction(
      () =>
        document.querySelector('radio-player')?.shadowRoot?.querySelector('.card.playing') !== null,
      undefined,
      { timeout: 60_000 },
    );
    await holdsFor(
      () =>
        page.evaluate(() => {
          const c = document
            .querySelector('radio-player')!
            .shadowRoot!.querySelector('canvas.viz')!;
          return !c.hasAttribute('data-active') && getComputedStyle(c).display === 'none';
        }),
      2000,
      'no level animation under reduced motion',
    );
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
