/**
 * Helpers for the web app's browser tests: the real API (serving the built `web/dist`) on a port chosen
 * up front so its public URL (the CSRF origin check) matches what the browser sends, REST shortcuts, the
 * CLI publishing a tone, and small page utilities.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import {
  freeLoopbackPort,
  type TestApp,
  type TestUser,
  signUp,
  startTestApp,
} from '../../apps/api/testing/test-app.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const WEB_DIST_INDEX = resolve(REPO_ROOT, 'web/dist/index.html');
export const CLI_MAIN = resolve(REPO_ROOT, 'apps/cli/dist/main.js');

/** A free loopback port (bound and released at once). */
export const freePort = freeLoopbackPort;

/**
 * The API with the built web app, on http://127.0.0.1:{port} with PUBLIC_URL set to exactly that.
 * Throws early when `npm run build` has not produced `web/dist`.
 */
export async function startWebApp(env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  if (!existsSync(WEB_DIST_INDEX)) {
    throw new Error(`${WEB_DIST_INDEX} is missing: run "npm run build" first`);
  }
  const port = await freePort();
  return startTestApp({
    port,
    env: {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SFU_SHARDS: '0',
      ...env,
    },
  });
}

async function api<T>(
  url: string,
  path: string,
  user: TestUser | null,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(user ? user.auth : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export function createStation(
  url: string,
  user: TestUser,
  body: { name: string; slug?: string; description?: string },
): Promise<CreateStationResponse> {
  return api<CreateStationResponse>(url, '/api/stations', user, body);
}

/** A new owner's new station, on air with the CLI's tone: the set-up of the tests that listen to one. */
export async function stationOnAirWithTone(
  url: string,
  station: { name: string; slug?: string },
  hz: number,
  timeoutMs?: number,
): Promise<{ owner: TestUser; created: CreateStationResponse; cli: CliBroadcast }> {
  const owner = await signUp(url);
  const created = await createStation(url, owner, station);
  const cli = await cliBroadcastTone({
    server: url,
    station: `${owner.username}/${created.station.slug}`,
    token: created.streamToken.token,
    hz,
    timeoutMs,
  });
  return { owner, created, cli };
}

export function setNowPlaying(
  url: string,
  user: TestUser,
  body: { stationId: string; track: string; artist?: string; album?: string },
): Promise<Station> {
  return api<Station>(url, '/api/stations/now-playing', user, body);
}

export function getStation(url: string, id: string): Promise<Station> {
  return api<Station>(url, `/api/stations/${id}`, null);
}

export { until } from './wait.js';

export interface CliBroadcast {
  /** The CLI's process id (its sockets can be told from a browser's). */
  pid: number;
  /** Everything the CLI wrote to stderr so far. */
  output: () => string;
  /** SIGTERM (the CLI stops publishing and DELETEs its WHIP session) and wait for the exit. */
  stop: () => Promise<number | null>;
}

/**
 * `radio-broadcaster broadcast --tone {hz}` (the built CLI, `apps/cli/dist/main.js`) publishing to
 * `{username}/{slug}` with a station token; resolves once it reports "live".
 */
export async function cliBroadcastTone(opts: {
  server: string;
  station: string;
  token: string;
  hz: number;
  timeoutMs?: number;
}): Promise<CliBroadcast> {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run "npm run build" first`);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CLI_MAIN,
      'broadcast',
      '--server',
      opts.server,
      '--station',
      opts.station,
      '--token',
      opts.token,
      '--tone',
      String(opts.hz),
      '--mono',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RB_SERVER: opts.server } },
  );
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the CLI did not go live in time:\n${output}`));
    }, opts.timeoutMs ?? 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      output += c.toString();
      if (/^live \(connected/m.test(output)) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the CLI exited with ${code} before going live:\n${output}`));
    });
  });
  return {
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * The loudest short-term RMS (dBFS) of the MediaStream played by the `<audio>` at `audioSelector`,
 * measured through a WebAudio analyser every ~20 ms over `ms`. Silence gives about -100 or less; no
 * stream gives -Infinity. Suits bursty sources such as Chromium's fake microphone (short beeps).
 * With `aboveDbfs`, it returns as soon as the level exceeds it (for tests asserting "louder than").
 */
export async function audioLevel(
  page: Page,
  audioSelector: string,
  ms = 3000,
  aboveDbfs?: number,
): Promise<number> {
  const above = aboveDbfs === undefined ? null : 10 ** ((aboveDbfs + 0.01) / 20);
  const level = await page.evaluate(
    async ({ audioSelector, ms, above }) => {
      const el = document.querySelector(audioSelector) as HTMLMediaElement | null;
      const stream = (el?.srcObject as MediaStream | null | undefined) ?? null;
      if (!stream || stream.getAudioTracks().length === 0) return null;
      const ctx = new AudioContext();
      await ctx.resume();
      const source = ctx.createMediaStreamSource(stream);
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 2048;
      source.connect(analyser);
      const data = new Float32Array(analyser.fftSize);
      let best = 0;
      const end = performance.now() + ms;
      while (performance.now() < end) {
        await new Promise((r) => setTimeout(r, 20));
        analyser.getFloatTimeDomainData(data);
        let sum = 0;
        for (const v of data) sum += v * v;
        best = Math.max(best, Math.sqrt(sum / data.length));
        if (above !== null && best > above) break;
      }
      await ctx.close();
      return best;
    },
    { audioSelector, ms, above },
  );
  if (level === null) return -Infinity;
  return level > 0 ? 20 * Math.log10(level) : -200;
}

/**
 * The requests `page` has started and not yet finished (or failed), each with how long it has been
 * waiting: for a failure's message, when a page did not render what a test waited for.
 */
export function watchRequests(page: Page): () => string[] {
  const started = new Map<Request, number>();
  page.on('request', (r) => started.set(r, Date.now()));
  page.on('requestfinished', (r) => started.delete(r));
  page.on('requestfailed', (r) => started.delete(r));
  return () => [...started].map(([r, at]) => `${r.method()} ${r.url()} (${Date.now() - at} ms)`);
}

/**
 * Waits for the element with test id `testId` on `page`; if it does not show, the error says what
 * the page was doing: its address, load state, requests still pending (`pending`, watchRequests)
 * and the start of its text.
 */
export async function shown(page: Page, testId: string, pending?: () => string[]): Promise<void> {
  try {
    await page.getByTestId(testId).waitFor();
  } catch (e) {
    const state = await page
      .evaluate(() => ({
        readyState: document.readyState,
        text: (document.body?.innerText ?? '').replace(/\s+/g, ' ').slice(0, 400),
      }))
      .catch((err: Error) => ({ readyState: `unknown (${err.message})`, text: '' }));
    throw new Error(
      `${(e as Error).message}\n  page ${page.url()}, document ${state.readyState}` +
        `\n  requests pending: ${pending?.().join(', ') || 'none'}\n  text: ${state.text}`,
    );
  }
}

/** Collects uncaught page errors and console errors (minus failed-resource noise) of a page. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) {
      problems.push(`console: ${m.text()}`);
    }
  });
  return problems;
}
