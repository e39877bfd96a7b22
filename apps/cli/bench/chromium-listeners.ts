/**
 * bench:net's Chromium listeners: Debian's Chromium inside the listeners' network namespace (so it
 * crosses the same impaired link as the werift listeners), one browser context per listener, each a
 * page with our player (`<radio-player station=… autoplay>`, the API's /player.js) on the API's
 * origin. Per listener, at the end of the run: does it play over WebRTC (from the start, or switched
 * to it from the HTTP stream that stood in meanwhile: `upgraded`), over the HTTP stream only, or did
 * its join fail (and what did the player say); page load → first audio (either way) and page load →
 * WebRTC audio; and, from the page's RTCPeerConnection, packets received and lost (after NACK
 * retransmission) and the share of audio concealed.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

export interface ChromiumRunResult {
  requested: number;
  /** Played over WebRTC during the run (the upgraded ones included). */
  connected: number;
  /** Of those, listeners that played the HTTP stream first and then switched to WebRTC. */
  upgraded: number;
  /** Played the HTTP stream only (WebRTC had not connected by the end of the run). */
  viaHttp: number;
  failed: number;
  /** What the player said for those that never played. */
  errors: Record<string, number>;
  /** Page load → first audio, either way (ms), every listener that played. */
  firstAudioSamples: number[];
  /** Page load → audio over WebRTC (ms), the listeners that play over WebRTC. */
  webrtcAudioSamples: number[];
  packetsReceived: number;
  packetsLost: number;
  /** Share of the audio played out that was concealed (%), over all WebRTC listeners. */
  concealedPercent: number;
  /** NACK packets the WebRTC listeners sent (inbound-rtp nackCount, summed). */
  nacksSent: number;
  /**
   * Their mean jitter-buffer delay (ms): Chromium's NetEq asks again only for a packet whose time to
   * play is longer than the round trip (nack_tracker.cc); on lossy paths it grows this buffer itself
   * (120–380 ms measured at 50–300 ms RTT) so that resends arrive in time.
   */
  jitterBufferMs: number;
}

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

interface PageReport {
  /** First 'live' (ms since the page started), and whether it was the HTTP stream. */
  live: { t: number; http: boolean } | null;
  /** When the audio first came over WebRTC (live from the start, or the switch). */
  webrtc: number | null;
  transport: 'webrtc' | 'http' | null;
  upgrades: number;
  state: string | null;
  error: string | null;
  stats: {
    received: number;
    lost: number;
    concealed: number;
    samples: number;
    nacks: number;
    jbDelayS: number;
    jbEmitted: number;
  } | null;
}

export async function chromiumListeners(o: {
  /** Network namespace the browser runs in. */
  ns: string;
  apiUrl: string;
  station: string;
  listeners: number;
  /** Listeners joining per second. */
  ramp: number;
  durationS: number;
  /** A scratch directory. */
  dir: string;
}): Promise<ChromiumRunResult> {
  const wrapper = join(o.dir, 'chromium-in-ns');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${o.ns} /usr/bin/chromium "$@"\n`);
  chmodSync(wrapper, 0o755);
  const browser = await chromium.launch({ executablePath: wrapper, args: FLAGS, headless: true });
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>listener</title>
<script>${COLLECT_PEER_CONNECTIONS}</script>
<script src="${o.apiUrl}/player.js"></script></head><body>
<radio-player station="${o.station}" autoplay></radio-player>
<script>
  window.__t0 = performance.now();
  window.__live = null;
  window.__webrtc = null;
  const el = document.querySelector('radio-player');
  const now = () => performance.now() - window.__t0;
  // a player without the transport property (before it had one) says so through viaHttp
  const via = () => el.transport ?? (el.client?.viaHttp ? 'http' : 'webrtc');
  el.addEventListener('statechange', (e) => {
    if (e.detail.state !== 'live') return;
    if (!window.__live) window.__live = { t: now(), http: via() === 'http' };
    if (via() === 'webrtc' && window.__webrtc === null) window.__webrtc = now();
  });
  // the switch from the HTTP stream (the state stays live)
  el.addEventListener('transportchange', (e) => {
    if (e.detail.transport === 'webrtc' && el.state === 'live' && window.__webrtc === null)
      window.__webrtc = now();
  });
</script></body></html>`;
  const pages: Page[] = [];
  // a page on the API's origin (a file it serves, its document replaced): no cross-origin or
  // private-network checks between the page and the player's calls
  const SITE = `${o.apiUrl}/embed`;
  const pageProblems = new Map<Page, string[]>();
  try {
    const t0 = Date.now();
    for (let i = 0; i < o.listeners; i++) {
      const due = t0 + (i * 1000) / o.ramp;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      // the document replaced keeps the served file's CSP: the test page's inline scripts need it off
      // reduced motion: the player draws no level meter (a canvas redrawn every other frame, per
      // page), which on 2 cores made the listening pages themselves the machine's load
      const context = await browser.newContext({ bypassCSP: true, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text().slice(0, 100));
      });
      page.on('pageerror', (e) => problems.push(e.message.slice(0, 100)));
      pageProblems.set(page, problems);
      // a page that does not load (the lossy link, a starved machine) is a failed join, not the end of the run
      try {
        await page.goto(SITE, { timeout: 60_000 });
        await page.setContent(html, { timeout: 60_000 });
      } catch (e) {
        problems.push(`page did not load: ${(e as Error).message.split('\n')[0]!.slice(0, 80)}`);
      }
      pages.push(page);
    }
    await new Promise((r) => setTimeout(r, o.durationS * 1000));
    const reports = await Promise.all(pages.map((p) => report(p)));
    const result: ChromiumRunResult = {
      requested: o.listeners,
      connected: 0,
      upgraded: 0,
      viaHttp: 0,
      failed: 0,
      errors: {},
      firstAudioSamples: [],
      webrtcAudioSamples: [],
      packetsReceived: 0,
      packetsLost: 0,
      concealedPercent: 0,
      nacksSent: 0,
      jitterBufferMs: NaN,
    };
    let concealed = 0;
    let samples = 0;
    let jbDelayS = 0;
    let jbEmitted = 0;
    for (const r of reports) {
      if (r.live) result.firstAudioSamples.push(Math.round(r.live.t));
      // WebRTC audio came (from the start, or the switch from the stream): it connected
      if (r.live && r.webrtc !== null) {
        result.connected++;
        if (r.live.http) result.upgraded++;
        result.webrtcAudioSamples.push(Math.round(r.webrtc));
        result.packetsReceived += r.stats?.received ?? 0;
        result.packetsLost += r.stats?.lost ?? 0;
        concealed += r.stats?.concealed ?? 0;
        samples += r.stats?.samples ?? 0;
        result.nacksSent += r.stats?.nacks ?? 0;
        jbDelayS += r.stats?.jbDelayS ?? 0;
        jbEmitted += r.stats?.jbEmitted ?? 0;
      } else if (r.live) result.viaHttp++;
      else {
        result.failed++;
        const why = r.state
          ? `${r.state}${r.error ? `: ${r.error}` : ''}`
          : `no player: ${pageProblems.get(pages[reports.indexOf(r)]!)?.join(' | ') ?? ''}`;
        result.errors[why] = (result.errors[why] ?? 0) + 1;
      }
    }
    result.concealedPercent = samples ? (100 * concealed) / samples : NaN;
    result.jitterBufferMs = jbEmitted ? (1000 * jbDelayS) / jbEmitted : NaN;
    return result;
  } finally {
    await browser.close().catch(() => undefined);
  }
}

/** Page source (apps/cli has no DOM types): keeps every RTCPeerConnection the page makes. */
const COLLECT_PEER_CONNECTIONS = `
  window.__pcs = [];
  const Original = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Original {
    constructor(config) {
      super(config);
      window.__pcs.push(this);
    }
  };
`;

/** Page source: what the player did, and its last connection's inbound audio statistics. */
const REPORT = `(async () => {
  const el = document.querySelector('radio-player');
  let stats = null;
  const pc = window.__pcs.at(-1);
  if (pc && pc.connectionState !== 'closed') {
    (await pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'audio') {
        stats = {
          received: Number(s.packetsReceived ?? 0),
          lost: Number(s.packetsLost ?? 0),
          concealed: Number(s.concealedSamples ?? 0),
          samples: Number(s.totalSamplesReceived ?? 0),
          nacks: Number(s.nackCount ?? 0),
          jbDelayS: Number(s.jitterBufferDelay ?? 0),
          jbEmitted: Number(s.jitterBufferEmittedCount ?? 0),
        };
      }
    });
  }
  return {
    live: window.__live,
    webrtc: window.__webrtc,
    transport: el.transport ?? (el.client ? (el.client.viaHttp ? 'http' : 'webrtc') : null),
    upgrades: el.client?.upgrades ?? 0,
    state: el.state,
    error: el.client?.error?.message ?? null,
    stats,
  };
})()`;

function report(page: Page): Promise<PageReport> {
  return (page.evaluate(REPORT) as Promise<PageReport>).catch((): PageReport => ({
    live: null,
    webrtc: null,
    transport: null,
    upgrades: 0,
    state: null,
    error: null,
    stats: null,
  }));
}
