/**
 * The owner's allowed domains, as a browser meets them, against the real API with a live station
 * (published by the CLI): a page on another origin (a static site on its own loopback port, reached
 * as `localhost:PORT`, which the owner lists, and as `127.0.0.1:PORT`, which no list can name).
 *
 * - `/listen`: a page with `<meta name=referrer content=no-referrer>` sends neither Origin nor
 *   Referer, like VLC; once domains are listed its `<audio src=…/listen/…>` is refused (the plain
 *   URL is private by default), and plays again when the owner turns "Public stream URL" on.
 * - `/embed`: the page `frame-ancestors` lets frame it and the join check agree, ports included:
 *   an allowed `localhost:PORT` page frames the player and may join; a page not allowed is
 *   refused by both.
 *
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
  until,
} from '../support/web-app.js';

interface Site {
  port: number;
  close(): Promise<void>;
}

/** `/hidden.html`: an `<audio>` playing `listen` with no referrer; `/frame.html?src=…`: an iframe. */
async function startSite(listen: string, embed: string): Promise<Site> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    let body: string;
    if (url.pathname === '/hidden.html') {
      body = `<!doctype html><html><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer"><title>Someone else's radio page</title></head>
<body><audio id="a" src="${listen}" autoplay></audio></body></html>`;
    } else if (url.pathname === '/frame.html') {
      const referrer = url.searchParams.has('no-referrer')
        ? '<meta name="referrer" content="no-referrer">'
        : '';
      body = `<!doctype html><html><head><meta charset="utf-8">${referrer}<title>A blog</title></head>
<body><iframe id="player" src="${embed}" width="400" height="200"></iframe></body></html>`;
    } else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

describe('allowed domains in the browser: /listen from pages that hide their referrer, /embed framing', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let site: Site;
  let stationId: string;
  let listenPath: string;
  let cli: CliBroadcast;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { ...owner.auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
    return res;
  };
  const setPublicStream = (publicStreamUrl: boolean) =>
    api('POST', '/api/stations/broadcast-settings', { stationId, publicStreamUrl });

  beforeAll(async () => {
    app = await startWebApp();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Hidden Referrer FM' });
    stationId = created.station.id;
    const slug = created.station.slug;
    listenPath = `/listen/${owner.username}/${slug}.ogg`;
    site = await startSite(`${app.url}${listenPath}`, `${app.url}/embed/${owner.username}/${slug}`);
    await api('POST', '/api/me/allowed-domains', { domain: 'localhost' });
    (app.app.getHttpServer() as Server).on('request', (req, res) => {
      if (!req.url?.startsWith(listenPath)) return;
      const entry: (typeof asked)[number] = {
        referer: req.headers.referer,
        origin: req.headers.origin,
      };
      asked.push(entry);
      res.once('finish', () => (entry.status = res.statusCode));
    });
    [browser, cli] = await Promise.all([
      launchChromium(),
      cliBroadcastTone({
        server: app.url,
        station: `${owner.username}/${slug}`,
        token: created.streamToken.token,
        hz: 660,
        timeoutMs: 30_000,
      }),
    ]);
  }, 90_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  /** What `/listen` was asked by the browser (seen by the API's server): headers and answer. */
  const asked: { referer?: string; origin?: string; status?: number }[] = [];

  /** Opens `/hidden.html` on `origin`, once the browser asked for the stream. */
  async function hiddenPage(origin: string): Promise<Page> {
    asked.length = 0;
    const page = await browser.newPage();
    await page.goto(`${origin}/hidden.html`);
    await until(
      'the audio element to ask for the stream',
      async () => asked.length,
      (n) => n > 0,
    );
    // What makes it look like VLC: the browser sent neither Referer nor Origin.
    expect(asked.map((a) => [a.referer, a.origin])).toEqual(
      asked.map(() => [undefined, undefined]),
    );
    return page;
  }

  const audioState = (page: Page) =>
    page.evaluate(() => {
      const a = document.getElementById('a') as HTMLAudioElement;
      return { error: a.error?.code ?? null, time: a.currentTime };
    });

  it('refuses /listen to a no-referrer page on a foreign origin while the stream URL is private, plays it once public', async () => {
    const foreign = `http://127.0.0.1:${site.port}`;
    const refused = await hiddenPage(foreign);
    const failed = await until(
      'the audio element to give up',
      () => audioState(refused),
      (s) => s.error !== null,
      15_000,
    );
    expect(failed.time).toBe(0);
    expect(asked.map((a) => a.status)).toEqual(asked.map(() => 403));
    await refused.close();

    // The owner turns "Public stream URL" back on: the stream then plays anywhere.
    await setPublicStream(true);
    await until(
      'the plain URL to play again',
      async () => (await fetch(`${app.url}${listenPath}`, { method: 'HEAD' })).status,
      (s) => s === 200,
    );
    const plays = await hiddenPage(foreign);
    await until(
      'the audio to play',
      () => audioState(plays),
      (s) => s.time > 1 && s.error === null,
      20_000,
    );
    await plays.close();
    await setPublicStream(false);
  }, 90_000);

  /** The framing page on `origin`, its frame's content, and what a join from it answers. */
  async function framed(origin: string, query = '') {
    const page = await browser.newPage();
    await page.goto(`${origin}/frame.html${query}`);
    const join = await page.evaluate(
      async ({ url, stationId }) => {
        const res = await fetch(`${url}/api/joinStationAsReceiver`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ stationId }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      { url: app.url, stationId },
    );
    return { page, join };
  }

  const frameOf = (page: Page) => page.frames().find((f) => f !== page.mainFrame())!;

  it('lets an allowed localhost:PORT page frame /embed and join; a page not allowed is refused by both', async () => {
    const allowed = await framed(`http://localhost:${site.port}`);
    expect(allowed.join.status).toBe(200);
    expect(allowed.join.body.listen).toEqual({
      ogg: expect.stringMatching(/\/listen\/.+\.ogg\?t=[\w-]+\.[\w-]+$/),
      mp3: expect.stringMatching(/\/listen\/.+\.mp3\?t=[\w-]+\.[\w-]+$/),
    });
    await until(
      'the embed player to render in the frame',
      async () => frameOf(allowed.page).locator('[data-testid=embed-player]').count(),
      (n) => n === 1,
      20_000,
    );
    await allowed.page.close();

    const refused = await framed(`http://127.0.0.1:${site.port}`);
    expect([refused.join.status, refused.join.body.error]).toEqual([403, 'DOMAIN_NOT_ALLOWED']);
    // It tells the server who frames it: the page that says why it does not play.
    await frameOf(refused.page).locator('[data-testid=embed-refused]').waitFor();
    await refused.page.close();

    // Hiding the referrer: the browser's frame-ancestors check refuses it instead.
    const hidden = await framed(`http://127.0.0.1:${site.port}`, '?no-referrer');
    expect(hidden.join.status).toBe(403);
    const frame = frameOf(hidden.page);
    await until(
      'the browser to refuse the frame',
      async () => frame.url(),
      (u) => u.startsWith('chrome-error://'),
      20_000,
    );
    expect(await frame.locator('[data-testid=embed-player]').count()).toBe(0);
    await hidden.page.close();
  }, 90_000);
});
