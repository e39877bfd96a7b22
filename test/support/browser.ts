import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type LaunchOptions,
  type Locator,
  type Page,
} from 'playwright-core';

/** Debian's Chromium, never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

/**
 * How long a Playwright action, wait or navigation may take before it fails (Playwright's default is
 * 30 s). Every wait is on a condition, so this only bounds how long a broken page takes to fail:
 * generous, because `npm test` runs two e2e files at once on a loaded 2-core machine, where a render
 * or a navigation that takes one second alone can take ten.
 */
export const BROWSER_TIMEOUT_MS = 60_000;

/**
 * Pages prefer reduced motion unless a test asks otherwise (`reducedMotion: 'no-preference'`, as
 * player-artwork's level-animation tests do): the app then stops its endless animations and the
 * player's 60 fps level bars, which software rendering in a headless Chromium otherwise draws for as
 * long as a test's page is open, on CPU the other files of the run need (docs/testing.md).
 */
export const REDUCED_MOTION = 'reduce' as const;

/** Applies {@link BROWSER_TIMEOUT_MS} to a context (and so to each of its pages). */
export function withBrowserTimeouts<C extends BrowserContext>(context: C): C {
  context.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
  return context;
}

/**
 * Chromium with a fresh profile (playwright's `launch` always uses a temporary one; it refuses
 * `--user-data-dir`); `fakeMedia` adds a fake microphone/screen that needs no prompt;
 * `executablePath` runs another launcher (a script starting it in a network namespace). Its contexts
 * and pages (`browser.newPage()` opens a context too) wait {@link BROWSER_TIMEOUT_MS}.
 */
export async function launchChromium(
  opts: { fakeMedia?: boolean; extraArgs?: string[]; executablePath?: string } = {},
): Promise<Browser> {
  const args = [
    ...FLAGS,
    ...(opts.fakeMedia
      ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']
      : []),
    ...(opts.extraArgs ?? []),
  ];
  const launch: LaunchOptions = {
    executablePath: opts.executablePath ?? CHROMIUM,
    args,
    headless: true,
  };
  const browser = await chromium.launch(launch);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) =>
    withBrowserTimeouts(await newContext({ reducedMotion: REDUCED_MOTION, ...options }));
  return browser;
}

/**
 * Chromium whose WebRTC may not use UDP except through a proxy or a TURN relay: a fresh profile
 * with `webrtc.ip_handling_policy = disable_non_proxied_udp` in `Default/Preferences`, as a user or
 * an administrator sets it. The profile directory is left to the OS's temporary-file cleanup.
 */
export async function launchChromiumWithoutUdp(
  opts: { fakeMedia?: boolean } = {},
): Promise<BrowserContext> {
  const dir = mkdtempSync(join(tmpdir(), 'rb-chromium-noudp-'));
  mkdirSync(join(dir, 'Default'));
  writeFileSync(
    join(dir, 'Default', 'Preferences'),
    JSON.stringify({ webrtc: { ip_handling_policy: 'disable_non_proxied_udp' } }),
  );
  return withBrowserTimeouts(
    await chromium.launchPersistentContext(dir, {
      reducedMotion: REDUCED_MOTION,
      executablePath: CHROMIUM,
      headless: true,
      args: [
        ...FLAGS,
        ...(opts.fakeMedia
          ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']
          : []),
      ],
    }),
  );
}

/** Screenshots land in `artifacts/screenshots/` (kept by CI as artifacts). */
export function screenshotPath(name: string): string {
  const dir = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../artifacts/screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/**
 * Listens to a MediaStream in the page through a WebAudio analyser and returns how far the
 * tone's frequency bin stands above the spectrum's median (dB), the best over `ms`; with
 * `above`, it returns as soon as that best exceeds `above` (a test asserting "at least X" needs
 * no more listening than that; one asserting a maximum listens the whole `ms`).
 * The stream is the `srcObject` of the `<audio>` matched by `audioSelector` (inside the shadow
 * root of `hostSelector` when given), or, for an element playing a URL (the HTTP stream), the
 * element's own output. No eval, so it works under the pages' strict CSP.
 */
export async function toneProminence(
  page: Page,
  where: { audioSelector: string; hostSelector?: string },
  freq: number,
  ms = 3000,
  above = Infinity,
): Promise<number> {
  const [best] = await tonesProminence(page, where, [freq], ms, { above });
  return best!;
}

/**
 * {@link toneProminence} for several frequencies in one listen (the same analyser frames), one best
 * per frequency. With `above`, it returns once the first frequency's best exceeds it and at least
 * `minMs` has been listened to: a test that compares the tone with a frequency nobody sends
 * ({@link toneOverOther}) stops when the tone is heard instead of listening out fixed windows.
 */
export async function tonesProminence(
  page: Page,
  where: { audioSelector: string; hostSelector?: string },
  freqs: number[],
  ms = 3000,
  { above = Infinity, minMs = 0 }: { above?: number; minMs?: number } = {},
): Promise<number[]> {
  return page.evaluate(
    async ({ where, freqs, ms, above, minMs }) => {
      const root: ParentNode | null | undefined = where.hostSelector
        ? document.querySelector(where.hostSelector)?.shadowRoot
        : document;
      const el = root?.querySelector(where.audioSelector) as
        (HTMLMediaElement & { captureStream(): MediaStream }) | null | undefined;
      const stream =
        (el?.srcObject as MediaStream | null | undefined) ?? (el?.src ? el.captureStream() : null);
      if (!stream) return freqs.map(() => -1);
      const ctx = new AudioContext();
      await ctx.resume();
      const source = ctx.createMediaStreamSource(stream);
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 4096;
      source.connect(analyser);
      const data = new Float32Array(analyser.frequencyBinCount);
      const bins = freqs.map((f) => Math.round((f / ctx.sampleRate) * analyser.fftSize));
      const best = freqs.map(() => -Infinity);
      const start = performance.now();
      while (performance.now() < start + ms) {
        await new Promise((r) => setTimeout(r, 100));
        analyser.getFloatFrequencyData(data);
        const sorted = Array.from(data)
          .filter(Number.isFinite)
          .sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)] ?? -200;
        bins.forEach((bin, i) => {
          const peak = Math.max(data[bin - 1]!, data[bin]!, data[bin + 1]!);
          if (Number.isFinite(peak)) best[i] = Math.max(best[i]!, peak - median);
        });
        if (above !== null && best[0]! > above && performance.now() - start >= minMs) break;
      }
      await ctx.close();
      return best;
    },
    // JSON carries no Infinity: null means listen the whole `ms`.
    { where, freqs, ms, above: Number.isFinite(above) ? above : null, minMs },
  );
}

/**
 * The tone at `hz` and, in the same frames, a frequency nobody sends (`notHz`): one listen of up to
 * `ms` that ends once the tone stands `heardDb` above the spectrum (after at least 500 ms, so the
 * other frequency is sampled over several frames). Callers assert `at >= heardDb` and
 * `other < at - 15`: the energy is at the published frequency, not everywhere.
 */
export async function toneOverOther(
  page: Page,
  where: { audioSelector: string; hostSelector?: string },
  hz: number,
  notHz: number,
  ms = 3000,
  heardDb = 20,
): Promise<{ at: number; other: number }> {
  const [at, other] = await tonesProminence(page, where, [hz, notHz], ms, {
    above: heardDb,
    minMs: 500,
  });
  return { at: at!, other: other! };
}

/** Keeps every RTCPeerConnection the page creates, in order, for {@link peerConnectionRoutes}. */
export async function recordPeerConnections(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    const all: RTCPeerConnection[] = [];
    Object.defineProperty(window, '__peerConnections', { value: all });
    window.RTCPeerConnection = class extends Native {
      constructor(config?: RTCConfiguration) {
        super(config);
        all.push(this);
      }
    };
  });
}

/** How one peer connection of the page carries audio, from its `getStats()`. */
export interface PeerConnectionRoute {
  connectionState: RTCPeerConnectionState;
  /** The ICE servers it uses (URLs), whoever set them. */
  iceServerUrls: string[];
  /** `candidateType` of the selected pair's local and remote candidates (`host`, `relay`, …). */
  localCandidateType: string | null;
  remoteCandidateType: string | null;
  /** For a relayed local candidate: how the browser reaches the relay (`tcp`, `udp`, `tls`). */
  relayProtocol: string | null;
  /**
   * STUN on the selected pair (ICE checks and RFC 7675 consent checks): the browser's checks and
   * the answers it accepted, the server's checks it received and answered.
   */
  stun: {
    requestsSent: number;
    responsesReceived: number;
    requestsReceived: number;
    responsesSent: number;
  };
  audioPacketsReceived: number;
  audioBytesReceived: number;
  audioPacketsSent: number;
  audioBytesSent: number;
}

/** The routes of the page's peer connections recorded by {@link recordPeerConnections}, open ones only. */
export async function peerConnectionRoutes(page: Page): Promise<PeerConnectionRoute[]> {
  return page.evaluate(async () => {
    const all = (window as unknown as { __peerConnections?: RTCPeerConnection[] })
      .__peerConnections;
    const routes: PeerConnectionRoute[] = [];
    for (const pc of all ?? []) {
      if (pc.connectionState === 'closed') continue;
      const stats = await pc.getStats();
      const route: PeerConnectionRoute = {
        connectionState: pc.connectionState,
        iceServerUrls: (pc.getConfiguration().iceServers ?? []).flatMap((s) =>
          Array.isArray(s.urls) ? s.urls : [s.urls],
        ),
        localCandidateType: null,
        remoteCandidateType: null,
        relayProtocol: null,
        stun: { requestsSent: 0, responsesReceived: 0, requestsReceived: 0, responsesSent: 0 },
        audioPacketsReceived: 0,
        audioBytesReceived: 0,
        audioPacketsSent: 0,
        audioBytesSent: 0,
      };
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') {
          const pair = stats.get(s.selectedCandidatePairId) as Record<string, string> | undefined;
          const local = pair && (stats.get(pair.localCandidateId!) as Record<string, string>);
          const remote = pair && (stats.get(pair.remoteCandidateId!) as Record<string, string>);
          route.localCandidateType = local?.candidateType ?? null;
          route.remoteCandidateType = remote?.candidateType ?? null;
          route.relayProtocol = local?.relayProtocol ?? null;
          for (const k of Object.keys(route.stun) as (keyof PeerConnectionRoute['stun'])[]) {
            route.stun[k] = Number(pair?.[k] ?? 0);
          }
        }
        if (s.kind !== 'audio') return;
        if (s.type === 'inbound-rtp') {
          route.audioPacketsReceived += Number(s.packetsReceived ?? 0);
          route.audioBytesReceived += Number(s.bytesReceived ?? 0);
        }
        if (s.type === 'outbound-rtp') {
          route.audioPacketsSent += Number(s.packetsSent ?? 0);
          route.audioBytesSent += Number(s.bytesSent ?? 0);
        }
      });
      routes.push(route);
    }
    return routes;
  });
}

/**
 * Resolves once the page has its fonts and has laid out two frames since the call: after a
 * navigation or a viewport change, before a screenshot or an accessibility scan.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
  });
}

/** Signs `user` in on the site at `url` through the form, and waits to land on `path`. */
export async function signInAt(
  page: Page,
  url: string,
  user: { email: string; password: string },
  path: string,
): Promise<void> {
  await page.goto(`${url}/signin?redirect=${encodeURIComponent(path)}`);
  await page.getByTestId('field-email').fill(user.email);
  await page.getByTestId('field-password').fill(user.password);
  await page.getByTestId('signin-submit').click();
  await page.waitForURL((u) => u.pathname + u.search === path);
}

/** The whole page, or only `part` of it, at 1280×800 and 390×844, saved as `{name}-{w}x{h}`. */
export async function shootBothSizes(page: Page, name: string, part?: Locator): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await settled(page);
    const path = screenshotPath(`${name}-${width}x${height}`);
    // The sticky site header would cover the top of an element scrolled under it.
    if (part)
      await part.screenshot({ path, style: '.site-header { position: static !important; }' });
    else await page.screenshot({ path, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
