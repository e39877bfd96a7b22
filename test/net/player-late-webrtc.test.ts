/**
 * A listener whose WebRTC connects late (a lossy link where the handshake needs a few tries): the
 * station page hears the station over the HTTP stream first, and when WebRTC gets through, switches
 * to it without leaving `live`: the `<audio>` plays the peer connection's track (its inbound-rtp
 * packets increase, the tone is heard), the stream's URL is gone and the server no longer counts an
 * HTTP listener. WebRTC is held back by real means: nftables (a table of this test's own in the
 * host's namespace) drops every datagram to and from the SFU's one UDP port except the
 * broadcaster's, until the player is live over HTTP. On today's main the player threw the WebRTC
 * session away at 5 s and stayed on the stream. Needs root (nft) and `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import {
  launchChromium,
  peerConnectionRoutes,
  recordPeerConnections,
  toneProminence,
} from '../support/browser.js';
import {
  type CliBroadcast,
  stationOnAirWithTone,
  freePort,
  getStation,
  startWebApp,
  until,
  watchProblems,
} from '../support/web-app.js';

const TONE_HZ = 660;
const AUDIO = '[data-testid=station-audio]';
const TABLE = `rb_late_webrtc_${process.pid}`;

const nft = (args: string[], input?: string) =>
  execFileSync('nft', args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

/** The UDP ports process `pid` has open (`ss`). */
function udpPortsOf(pid: number): number[] {
  const out = execFileSync('ss', ['-H', '-uanp']).toString();
  return out
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => Number(/:(\d+)$/.exec(l.trim().split(/\s+/)[3] ?? '')?.[1]))
    .filter((p) => Number.isInteger(p) && p > 0);
}

/** Drops UDP to and from the SFU's port, except the broadcaster's. */
function holdBack(sfuPort: number, exempt: number[]): void {
  const except = `{ ${exempt.join(', ')} }`;
  nft(
    ['-f', '-'],
    `table inet ${TABLE} {
  chain input {
    type filter hook input priority -10; policy accept;
    udp dport ${sfuPort} udp sport != ${except} counter drop
    udp sport ${sfuPort} udp dport != ${except} counter drop
  }
}
`,
  );
}

/** Lets everything through again; returns the packets dropped meanwhile. */
function letThrough(): number {
  try {
    const table = nft(['list', 'table', 'inet', TABLE]);
    nft(['delete', 'table', 'inet', TABLE]);
    return [...table.matchAll(/packets (\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
  } catch {
    return 0;
  }
}

function unavailable(): string | null {
  if (process.platform !== 'linux') return 'needs Linux nftables';
  if (process.getuid?.() !== 0) return 'needs root (nft)';
  try {
    execFileSync('nft', ['--version']);
    execFileSync('ss', ['-V']);
  } catch {
    return 'needs nft and ss';
  }
  return null;
}
const why = unavailable();
if (why) console.warn(`player-late-webrtc skipped: ${why}`);

(why ? describe.skip : describe)(
  'player: WebRTC that connects late takes over from the HTTP stream',
  () => {
    let app: TestApp;
    let browser: Browser;
    let owner: TestUser;
    let stationId: string;
    let slug: string;
    let broadcast: CliBroadcast;
    let sfuPort: number;

    beforeAll(async () => {
      sfuPort = await freePort();
      [app, browser] = await Promise.all([
        // one UDP port for every session, no TURN, no ICE-TCP: UDP to that port is the only way in
        startWebApp({ RTC_UDP_PORT: String(sfuPort), ICE_SERVERS: '[]' }),
        launchChromium(),
      ]);
      let created;
      ({
        owner,
        created,
        cli: broadcast,
      } = await stationOnAirWithTone(app.url, { name: 'Late Link FM' }, TONE_HZ, 30_000));
      stationId = created.station.id;
      slug = created.station.slug;
    }, 90_000);

    afterAll(async () => {
      letThrough();
      await broadcast?.stop();
      await browser?.close();
      await app?.close();
    });

    it('goes live over HTTP, then switches to WebRTC when it connects, and the stream stops', async () => {
      const exempt = udpPortsOf(broadcast.pid);
      expect(exempt.length).toBeGreaterThan(0);
      holdBack(sfuPort, exempt);
      const page = await browser.newPage();
      page.setDefaultTimeout(30_000);
      const problems = watchProblems(page);
      await recordPeerConnections(page);
      // every state the player shows, in order
      await page.addInitScript(() => {
        const seen: string[] = [];
        Object.defineProperty(window, '__states', { value: seen });
        new MutationObserver(() => {
          const s = document.querySelector('[data-testid=player]')?.getAttribute('data-state');
          if (s && seen.at(-1) !== s) seen.push(s);
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
      });
      await page.goto(`${app.url}/${owner.username}/${slug}`);
      await page.getByTestId('play-button').click();

      // WebRTC cannot get through: after httpFallbackMs the stream plays
      await page.locator('[data-testid=player][data-state=live]').waitFor();
      await page.getByTestId('player-http').waitFor();
      expect(await page.locator(AUDIO).getAttribute('src')).toMatch(/\/listen\/.+\.ogg\?t=/);
      expect(
        await toneProminence(page, { audioSelector: AUDIO }, TONE_HZ, 3000, 20),
      ).toBeGreaterThan(20);
      // the WebRTC session is still there, trying (on main it was closed when the stream started)
      const before = await until(
        'a WebRTC session still trying',
        () => peerConnectionRoutes(page),
        (rs) => rs.length > 0,
        5_000,
      );
      expect(before.every((r) => r.connectionState !== 'connected')).toBe(true);
      expect(before.every((r) => r.audioPacketsReceived === 0)).toBe(true);

      // the link lets WebRTC through now
      const dropped = letThrough();
      expect(dropped).toBeGreaterThan(0);
      await page.getByTestId('player-http').waitFor({ state: 'detached', timeout: 60_000 });

      // the element plays the peer connection's track: packets arrive and grow, the tone is heard
      const routes = await until(
        'audio over the peer connection',
        () => peerConnectionRoutes(page),
        (rs) => rs.some((r) => r.connectionState === 'connected' && r.audioPacketsReceived > 0),
        15_000,
      );
      const first = routes.find((r) => r.connectionState === 'connected')!.audioPacketsReceived;
      await until(
        'more packets over the peer connection',
        () => peerConnectionRoutes(page),
        (rs) =>
          rs.some((r) => r.connectionState === 'connected' && r.audioPacketsReceived > first + 25),
        15_000,
      );
      const element = await page.locator(AUDIO).evaluate((el: HTMLAudioElement) => ({
        src: el.getAttribute('src'),
        stream: el.srcObject instanceof MediaStream && el.srcObject.getAudioTracks().length,
        paused: el.paused,
      }));
      expect(element).toEqual({ src: null, stream: 1, paused: false });
      expect(
        await toneProminence(page, { audioSelector: AUDIO }, TONE_HZ, 3000, 20),
      ).toBeGreaterThan(20);
      // the HTTP stream's download ended: the server counts the one WebRTC listener only
      await until(
        'one listener (the WebRTC one)',
        () => getStation(app.url, stationId),
        (s) => s.viewerCount === 1,
        20_000,
      );
      // never back to 'connecting' on the way: the switch happened while live
      const states = await page.evaluate(
        () => (window as unknown as { __states: string[] }).__states,
      );
      expect(states.slice(states.indexOf('live'))).toEqual(['live']);
      expect(problems.filter((p) => !/ICE|WebRTC|whep/i.test(p))).toEqual([]);
      await page.close();
    }, 150_000);
  },
);
