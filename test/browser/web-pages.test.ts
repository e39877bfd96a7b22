/**
 * HTTP and layout defects seen in the browser: 404 statuses and titles for what does not exist, the
 * embed page as the `<radio-player>` itself at every documented size with nothing clipped, a refusal
 * explained inside a frame on a site the owner did not list, the embed docs' snippet on a phone with
 * its live preview, and blog and tutorial covers shown whole. Needs `npm run build`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { createStation, setNowPlaying, startWebApp } from '../support/web-app.js';

const SUFFIX = ' | Radio Broadcaster';

/** The sizes the embed docs and tutorials name (minimum, Wix, compact, Webflow, standard, large). */
const DOCUMENTED_SIZES = [
  [350, 300],
  [400, 300],
  [400, 350],
  [600, 400],
  [600, 450],
  [800, 600],
] as const;

/** Every part of the player that must be seen whole. */
const PLAYER_PARTS = [
  '.badge',
  '.count',
  '.name',
  '.np',
  'button.play',
  'button.mute',
  'input.volume',
  '.message',
];

describe('pages: statuses, the embed player, snippets and covers', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let owner: TestUser;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium();
    owner = await signUp(app.url);
    const { station } = await createStation(app.url, owner, {
      name: 'Night Owl Radio',
      slug: 'night-owl',
      description: 'Jazz after midnight.',
    });
    await setNowPlaying(app.url, owner, {
      stationId: station.id,
      track: 'A rather long track title that has to be cut somewhere',
      artist: 'An artist with a long name',
      album: 'And an album',
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  }

  it.each([
    ['an unknown route', '/this/route/does/not/exist', 'Not Found'],
    ['an unknown user', '/nobody-has-this-name', 'User not found'],
    ['an unknown station', '/OWNER/no-such-station', 'Station not found'],
    ['an unknown tutorial', '/tutorials/no-such-guide', 'Tutorial not found'],
  ])('%s answers 404 and says so, in the title too', async (_what, path, title) => {
    const page = await newPage();
    const res = await page.goto(`${app.url}${path.replace('OWNER', owner.username)}`);
    expect(res?.status()).toBe(404);
    await page.getByTestId('not-found').waitFor();
    expect(await page.locator('[data-testid=not-found] h1').textContent()).toBe(title);
    await page.waitForFunction((t) => document.title === t, `${title}${SUFFIX}`);
  });

  it('a missing build file answers 404 and no page', async () => {
    const page = await newPage();
    const res = await page.goto(`${app.url}/assets/index-0000.js`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('#root').count()).toBe(0);
  });

  it('an unknown path reached inside the app is titled Not Found as well', async () => {
    const page = await newPage();
    await page.goto(`${app.url}/about`);
    await page.getByTestId('page-title').waitFor();
    await page.evaluate(() => {
      history.pushState({}, '', '/no/such/page/here');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByTestId('not-found').waitFor();
    await page.waitForFunction((t) => document.title === t, `Not Found${SUFFIX}`);
  });

  it('the embed page is <radio-player> (off air, with the follow strip below it), whole at every documented size', async () => {
    for (const [width, height] of DOCUMENTED_SIZES) {
      const page = await newPage({ width, height });
      await page.goto(`${app.url}/embed/${owner.username}/night-owl`);
      const player = page.getByTestId('embed-player');
      await player.waitFor();
      await page.waitForFunction(
        () =>
          document.querySelector('radio-player')?.shadowRoot?.querySelector('.track')
            ?.textContent !== '',
      );
      const measured = await page.evaluate((parts) => {
        const el = document.querySelector('radio-player')!;
        const box = el.getBoundingClientRect();
        const vw = document.documentElement.clientWidth;
        const vh = document.documentElement.clientHeight;
        // Off air, frames 320 px tall and more give a strip below the player (next show, follow by
        // e-mail): the player and that strip fill the frame together.
        const strip = document.querySelector('[data-testid=embed-extras]')?.getBoundingClientRect();
        const bottom = strip && strip.height > 0 ? strip.bottom : box.bottom;
        const out: Record<string, string> = {
          player: `${Math.round(box.width)}x${Math.round(bottom - box.top)}`,
          scroll: `${document.documentElement.scrollWidth}x${document.documentElement.scrollHeight}`,
        };
        for (const sel of parts) {
          const r = el.shadowRoot!.querySelector(sel)!.getBoundingClientRect();
          const inside =
            r.width > 0 &&
            r.height > 0 &&
            r.left >= -0.5 &&
            r.top >= -0.5 &&
            r.right <= vw + 0.5 &&
            r.bottom <= vh + 0.5;
          out[sel] = inside
            ? 'inside'
            : `out ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}`;
        }
        return out;
      }, PLAYER_PARTS);
      expect(measured).toEqual({
        player: `${width}x${height}`,
        scroll: `${width}x${height}`,
        ...Object.fromEntries(PLAYER_PARTS.map((p) => [p, 'inside'])),
      });
      expect(await page.title()).toBe(`Night Owl Radio by @${owner.username}${SUFFIX}`);
      if (width === 350) await page.screenshot({ path: screenshotPath('embed-350x300') });
      await context!.close();
      context = undefined;
    }
  }, 90_000);

  it("the demo's embed page is the same player, for the station the server publishes", async () => {
    const page = await newPage({ width: 350, height: 300 });
    await page.goto(`${app.url}/embed/radiobroadcaster/demo?theme=light`);
    const player = page.getByTestId('embed-player');
    await player.waitFor();
    expect(await player.getAttribute('station')).toBe('radiobroadcaster/demo');
    expect(await player.getAttribute('theme')).toBe('light');
  });

  it('a missing station on the embed page is explained within 350×300', async () => {
    const page = await newPage({ width: 350, height: 300 });
    const res = await page.goto(`${app.url}/embed/${owner.username}/gone`);
    expect(res?.status()).toBe(404);
    const card = page.getByTestId('embed-error');
    await card.waitFor();
    const box = (await card.boundingBox())!;
    expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= 350 && box.y + box.height <= 300).toBe(
      true,
    );
  });

  it('framed by a site the owner did not list, the page says why instead of "refused to connect"', async () => {
    const embed = `${app.url}/embed/${owner.username}/night-owl`;
    // Another site on this machine (a public one may not frame a loopback server at all).
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>A blog</title></head><body><iframe src="${embed}" width="400" height="350" title="Radio player"></iframe></body></html>`,
      );
    });
    await new Promise<void>((ok) => site.listen(0, '127.0.0.1', ok));
    const siteUrl = `http://blog.localhost:${(site.address() as AddressInfo).port}/`;
    try {
      const page = await newPage({ width: 800, height: 600 });
      const frame = page.frameLocator('iframe');
      // No list: any site plays it.
      await page.goto(siteUrl);
      await frame.locator('radio-player').waitFor();
      await frame.locator('radio-player button.play:not([disabled])').waitFor();

      const added = await fetch(`${app.url}/api/me/allowed-domains`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ domain: 'radio.example.com' }),
      });
      expect(added.status).toBe(201);
      await page.goto(siteUrl);
      const refused = frame.getByTestId('embed-refused');
      await refused.waitFor();
      expect(await refused.getByRole('heading').textContent()).toBe(
        "This station can't be played on this site.",
      );
      expect(await refused.textContent()).toContain('blog.localhost is not one of them');
      expect(await refused.getByRole('link').getAttribute('href')).toBe(
        `/${owner.username}/night-owl`,
      );
      expect(await frame.locator('radio-player').count()).toBe(0);
      await page.screenshot({ path: screenshotPath('embed-refused-iframe') });
    } finally {
      site.closeAllConnections();
      await new Promise<void>((ok) => site.close(() => ok()));
    }
  });

  it('the embed docs: the two lines wrap on a phone, one copy button, a live preview that follows', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${app.url}/embed`);
    const snippet = page.getByTestId('embed-snippet');
    await snippet.waitFor();
    const fits = await snippet.evaluate((el) => ({
      scroll: el.scrollWidth <= el.clientWidth,
      inside: el.getBoundingClientRect().right <= document.documentElement.clientWidth,
      page: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
    }));
    expect(fits).toEqual({ scroll: true, inside: true, page: true });
    expect(await page.getByRole('button', { name: /^Copy/ }).count()).toBe(1);
    await context!.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.getByTestId('embed-snippet-copy').click();
    await page.waitForSelector('[data-testid=embed-snippet-copy][data-state=copied]');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      await snippet.textContent(),
    );

    // The preview is the player the snippet makes, and follows the address typed.
    const preview = page.getByTestId('playground-player');
    await preview.waitFor();
    await page.getByTestId('playground-station').fill(`${owner.username}/night-owl`);
    await page.getByLabel('light').check();
    expect(await snippet.textContent()).toContain(
      `<radio-player station="${owner.username}/night-owl" theme="light" autoplay="false">`,
    );
    expect(await preview.getAttribute('station')).toBe(`${owner.username}/night-owl`);
    expect(await preview.getAttribute('theme')).toBe('light');
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-testid=playground-player]')
          ?.shadowRoot?.querySelector('.name')?.textContent === 'Night Owl Radio',
    );
    await page.getByTestId('playground-station').fill('not a station');
    expect(await page.getByText('Use the form username/station-slug').count()).toBe(1);
    await page.screenshot({ path: screenshotPath('embed-docs-390x844'), fullPage: false });
  });

  it.each([
    ['/tutorials/', 1280, 800],
    ['/tutorials/', 390, 844],
    ['/blog/', 1280, 800],
    ['/blog/', 390, 844],
  ])('%s at %ix%i shows every cover whole, at a readable size', async (path, width, height) => {
    const page = await newPage({ width, height });
    await page.goto(`${app.url}${path}`);
    const covers = page.locator('.content-card img');
    await covers.first().waitFor();
    // The covers load lazily: bring each into view, then wait for every one.
    for (const img of await covers.all()) await img.scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.content-card img')].every(
        (i) => i.complete && i.naturalWidth > 0,
      ),
    );
    await page.evaluate(() => scrollTo(0, 0));
    const shown = await covers.evaluateAll((imgs) =>
      (imgs as HTMLImageElement[]).map((img) => {
        const r = img.getBoundingClientRect();
        const fit = getComputedStyle(img).objectFit;
        // Whole: the box has the picture's own proportions, or the picture is contained in it.
        const whole =
          fit === 'contain' ||
          Math.abs(r.width / r.height - img.naturalWidth / img.naturalHeight) < 0.02;
        return { whole, width: Math.round(r.width) };
      }),
    );
    for (const c of shown) {
      expect(c.whole).toBe(true);
      // The cover's 64 px title stays at least 16 px tall on screen.
      expect(c.width).toBeGreaterThanOrEqual(300);
    }
    const slug = path.replace(/\//g, '');
    await page.screenshot({ path: screenshotPath(`${slug}-index-${width}x${height}`) });
  });

  it('no page raised an uncaught error', () => {
    expect(problems).toEqual([]);
  });
});
