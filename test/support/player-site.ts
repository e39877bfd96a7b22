/**
 * Helpers for `<radio-player>`'s browser tests against the real API: a tiny embedding site on another
 * loopback port (the two-line embed under a strict Content-Security-Policy), a log of every request the
 * real API server receives, and a watch on each page (console errors, CSP violations, uncaught errors,
 * every request it makes).
 */
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';

/** The CSP the embedding site sends: only the API's script and calls; no inline anything, no eval. */
export function strictCsp(apiOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src ${apiOrigin}`,
    `connect-src ${apiOrigin}`,
    "style-src 'none'",
    "img-src 'none'",
    "media-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
}

export interface EmbedSite {
  port: number;
  /** The same server reached under two origins: `http://localhost:{port}` and `http://127.0.0.1:{port}`. */
  origin(host: 'localhost' | '127.0.0.1'): string;
  csp: string;
  close(): Promise<void>;
}

/**
 * A static site on its own port: `/` is the two-line embed with the classic script
 * (`<script src="{api}/player.js">` + `<radio-player {attrs}>`), `/esm.html` the same with
 * `<script type="module" src="{api}/player.mjs">`. `attrs` comes from the query string, verbatim.
 */
export async function startEmbedSite(apiUrl: string): Promise<EmbedSite> {
  const api = new URL(apiUrl).origin;
  const csp = strictCsp(api);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname !== '/' && url.pathname !== '/esm.html') {
      res.writeHead(404, { 'Content-Type': 'text/plain', 'Content-Security-Policy': csp });
      res.end('not found');
      return;
    }
    const attrs = url.searchParams.get('attrs') ?? '';
    const script =
      url.pathname === '/esm.html'
        ? `<script type="module" src="${api}/player.mjs"></script>`
        : `<script src="${api}/player.js"></script>`;
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': csp,
    });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A site that embeds a station</title></head>
<body>
<h1>Our radio</h1>
${script}
<radio-player ${attrs}></radio-player>
</body></html>`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return {
    port,
    csp,
    origin: (host) => `http://${host}:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  origin: string | undefined;
  cookie: string | undefined;
  status?: number;
  setCookie?: boolean;
}

/** Records every request the real API's HTTP server answers (a second 'request' listener: read only). */
export function logServerRequests(server: Server): { log: LoggedRequest[]; stop: () => void } {
  const log: LoggedRequest[] = [];
  const onRequest = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const entry: LoggedRequest = {
      at: Date.now(),
      method: req.method ?? '',
      path: req.url ?? '',
      origin: req.headers.origin,
      cookie: req.headers.cookie,
    };
    log.push(entry);
    res.once('finish', () => {
      entry.status = res.statusCode;
      entry.setCookie = res.getHeader('set-cookie') !== undefined;
    });
  };
  server.on('request', onRequest);
  return { log, stop: () => server.off('request', onRequest) };
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Every request the page made: `METHOD url`. */
  requests: { method: string; url: string; cookie: string | undefined }[];
  /** Console errors (CSP violations are reported there too), uncaught errors. */
  errors: string[];
  /** Player state changes seen by the page itself (no Playwright evaluate, so no user activation). */
  states: string[];
}

/**
 * A fresh context and page (its own cookie jar and media session) that records what happens: an init
 * script reports `securitypolicyviolation` events and `<radio-player>` state changes on the console.
 */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const watched: WatchedPage = { context, page, requests: [], errors: [], states: [] };
  await page.addInitScript(() => {
    addEventListener(
      'securitypolicyviolation',
      (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
      true,
    );
    addEventListener(
      'statechange',
      (e) =>
        console.info(`radio-player state: ${(e as CustomEvent<{ state: string }>).detail.state}`),
      true,
    );
  });
  if (process.env.PLAYER_TEST_DEBUG) {
    // Debug only: each peer connection's ICE, DTLS and connection states on the console.
    await page.addInitScript(() => {
      const Native = RTCPeerConnection;
      let n = 0;
      window.RTCPeerConnection = class extends Native {
        constructor(config?: RTCConfiguration) {
          super(config);
          const id = ++n;
          const t0 = performance.now();
          const log = (what: string) =>
            console.log(`debug pc${id} +${Math.round(performance.now() - t0)}ms ${what}`);
          this.addEventListener('iceconnectionstatechange', () =>
            log(`ice ${this.iceConnectionState}`),
          );
          this.addEventListener('connectionstatechange', () => log(`conn ${this.connectionState}`));
          this.addEventListener('icegatheringstatechange', () =>
            log(`gathering ${this.iceGatheringState}`),
          );
        }
      };
    });
  }
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() === 'error') {
      const where = m.location().url;
      watched.errors.push(where && !text.includes(where) ? `${text} (${where})` : text);
    }
    const state = /^radio-player state: (.+)$/.exec(text);
    if (state) {
      watched.states.push(state[1]!);
      if (process.env.PLAYER_TEST_DEBUG) console.log(new Date().toISOString(), text);
    }
  });
  page.on('pageerror', (e) => watched.errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    watched.requests.push({ method: r.method(), url: r.url(), cookie: r.headers()['cookie'] });
  });
  return watched;
}

/**
 * Console errors other than the failed loads the test expects: `expected` maps a status to the URL
 * pattern it may come from (Chromium logs every 4xx answer, whatever the page does with it).
 */
export function unexpectedErrors(w: WatchedPage, expected: [number, RegExp][] = []): string[] {
  return w.errors.filter((e) => {
    const m =
      /^Failed to load resource: the server responded with a status of (\d+).* \((.+)\)$/.exec(e);
    return !(m && expected.some(([status, url]) => status === Number(m[1]) && url.test(m[2]!)));
  });
}
