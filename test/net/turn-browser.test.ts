/**
 * A listener whose WebRTC may not use UDP except through a relay (Chromium profile preference
 * `webrtc.ip_handling_policy = disable_non_proxied_udp`) hears a station through our station page via
 * Debian's coturn over TCP, with the credentials the join hands out, and through a third-party WHEP
 * client (the npm package `whip-whep`, on a site of its own) that learns the relay only from the
 * `Link` headers of our WHEP answer; the studio, under the same policy, publishes through the relay
 * its WHIP answer names, and a listener hears it. The SFU offers no ICE-TCP port here, so the relay
 * is the only way in. Needs `npm run build`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import {
  launchChromiumWithoutUdp,
  peerConnectionRoutes,
  recordPeerConnections,
  toneOverOther,
  toneProminence,
} from '../support/browser.js';
import { hostAddress, startCoturn, type Coturn } from '../support/coturn.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  freePort,
  startWebApp,
  until,
} from '../support/web-app.js';

const TONE_HZ = 440;
const FAKE_MIC_HZ = 400;
const SECRET = 'turn-browser-secret-0123456789';
const AUDIO = '[data-testid=station-audio]';

/** whip-whep's WHEP client as published: a plain ES module with no imports, served verbatim. */
const WHEP_JS = readFileSync(createRequire(import.meta.url).resolve('whip-whep/whep.js'), 'utf8');

/**
 * A third party's listening page, as whip-whep's README shows it: a receive-only peer connection
 * with no ICE servers of its own, handed to `WHEPClient.view(pc, url)`; the audio plays in `#out`.
 */
const WHEP_PAGE = `<!doctype html>
<title>WHEP</title>
<audio id="out" autoplay></audio>
<script type="module">
  import { WHEPClient } from '/whep.js';
  const pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  pc.ontrack = (e) => {
    document.getElementById('out').srcObject = e.streams[0] ?? new MediaStream([e.track]);
  };
  const url = new URLSearchParams(location.search).get('whep');
  window.viewing = new WHEPClient().view(pc, url).then(() => 'ok', (e) => String(e));
</script>`;

/** The third party's site: its own origin (http://localhost:{port}), serving the page and whep.js. */
async function startWhepSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const port = await freePort();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const body = path === '/' ? WHEP_PAGE : path === '/whep.js' ? WHEP_JS : null;
    if (body === null) {
      res.writeHead(404).end();
      return;
    }
    const type = path === '/' ? 'text/html' : 'text/javascript';
    res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8` }).end(body);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

describe('Chromium without UDP hears a station through coturn', () => {
  let coturn: Coturn;
  let app: TestApp;
  let browser: BrowserContext;
  let owner: TestUser;
  let slug: string;
  let stationId: string;
  let cli: CliBroadcast | undefined;

  beforeAll(async () => {
    // the relay may reach the SFU's address (this machine's), never loopback or private ranges
    coturn = await startCoturn({ secret: SECRET, allowedPeers: [hostAddress()] });
    app = await startWebApp({
      RTC_UDP_PORT: '0',
      TURN_URLS: `turn:127.0.0.1:${coturn.port}?transport=tcp`,
      TURN_SECRET: SECRET,
      // low enough for the second test to reach them (the page joins once, the CLI publishes once)
      RATE_LIMIT_JOIN_PER_MINUTE: '12',
      RATE_LIMIT_PUBLISH_PER_MINUTE: '4',
    });
    browser = await launchChromiumWithoutUdp();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Relay FM', slug: 'relay-fm' });
    slug = created.station.slug;
    stationId = created.station.id;
    cli = await cliBroadcastTone({
      server: app.url,
      station: `${owner.username}/${slug}`,
      token: created.streamToken.token,
      hz: TONE_HZ,
    });
  }, 90_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await app?.close();
    await coturn?.stop();
  });

  it('plays the tone through the station page over a TURN/TCP relay', async () => {
    const page = await browser.newPage();
    const offers: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/whep\//.test(r.url())) offers.push(r.postData() ?? '');
    });
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    const joined = page.waitForResponse((r) => r.url().endsWith('/api/joinStationAsReceiver'));
    await page.getByRole('button', { name: 'Play Relay FM' }).click();
    // the join hands out credentials for the relay that live TURN_TTL_SECONDS (default 600)
    const join = (await (await joined).json()) as {
      iceServers: { urls: string | string[]; username?: string }[];
    };
    const relay = join.iceServers.find((s) => String(s.urls).startsWith('turn:'))!;
    const left = Number(relay.username!.split(':')[0]) - Date.now() / 1000;
    expect(left).toBeGreaterThan(540);
    expect(left).toBeLessThanOrEqual(600);
    await page.waitForSelector('[data-testid=player-state][data-state=live]', { timeout: 30_000 });
    const { at: at440, other: at1000 } = await toneOverOther(
      page,
      { audioSelector: AUDIO },
      TONE_HZ,
      1000,
    );
    expect(at440).toBeGreaterThanOrEqual(20);
    expect(at1000).toBeLessThan(at440 - 15);
    const candidates = offers
      .join('\n')
      .split(/\r?\n/)
      .filter((l) => l.startsWith('a=candidate:'));
    // no UDP of its own: only relayed candidates (or none, when it trickles)
    for (const c of candidates) expect(c).toMatch(/ typ relay /);
    // the relay allocated for the page's credentials and relayed to the SFU
    expect(coturn.output()).toMatch(/ALLOCATE processed, success/);
    expect(coturn.output()).toMatch(/CREATE_PERMISSION processed, success/);
    await page.close();
  }, 90_000);

  it('plays it through whip-whep on another site, relayed by the TURN server of our Link headers', async () => {
    const site = await startWhepSite();
    const page = await browser.newPage();
    try {
      await recordPeerConnections(page);
      const whep = `${app.url}/whep/${stationId}`;
      await page.goto(`${site.origin}/?whep=${encodeURIComponent(whep)}`);
      expect(
        await page.evaluate(() => (window as unknown as { viewing: Promise<string> }).viewing),
      ).toBe('ok');
      const connected = await until(
        'whip-whep to connect and receive audio',
        () => peerConnectionRoutes(page),
        (r) => r[0]?.connectionState === 'connected' && r[0].audioPacketsReceived > 0,
        20_000,
      );
      const [route] = connected;
      // it took the relay from our answer's Link header: the page configured none
      expect(route!.iceServerUrls).toEqual([`turn:127.0.0.1:${coturn.port}?transport=tcp`]);
      expect(route!.localCandidateType).toBe('relay');
      expect(route!.relayProtocol).toBe('tcp');
      // audio keeps arriving, and it is the station's tone
      const [later] = await until(
        '50 more audio packets through the relay',
        () => peerConnectionRoutes(page),
        ([r]) => r!.audioPacketsReceived > route!.audioPacketsReceived + 50,
        20_000,
      );
      expect(later!.audioPacketsReceived).toBeGreaterThan(route!.audioPacketsReceived + 50);
      expect(later!.audioBytesReceived).toBeGreaterThan(route!.audioBytesReceived);
      const at440 = await toneProminence(page, { audioSelector: '#out' }, TONE_HZ, 3000, 20);
      expect(at440).toBeGreaterThanOrEqual(20);
    } finally {
      await page.close();
      await site.close();
    }
  }, 90_000);

  it('the studio publishes through the relay too, and a listener hears it', async () => {
    const broadcaster = await signUp(app.url);
    const studioBrowser = await launchChromiumWithoutUdp({ fakeMedia: true });
    const listener = await browser.newPage();
    try {
      const studio = await studioBrowser.newPage();
      studio.setDefaultTimeout(15_000);
      await recordPeerConnections(studio);
      await studio.goto(`${app.url}/signin`);
      await studio.getByTestId('field-email').fill(broadcaster.email);
      await studio.getByTestId('field-password').fill(broadcaster.password);
      await studio.getByTestId('signin-submit').click();
      await studio.getByTestId('field-name').fill('Studio Relay');
      await studio.getByTestId('create-station').click();
      await studio.getByTestId('source-microphone').check();
      await studio.getByTestId('go-live').click();
      await studio.waitForSelector('[data-testid=broadcast-state][data-state=live]', {
        timeout: 30_000,
      });
      const [sending] = await until(
        'the studio to send audio',
        () => peerConnectionRoutes(studio),
        (r) => r.length === 1 && r[0]!.audioPacketsSent > 0,
      );
      // the relay named by the WHIP answer's Link header, reached over TCP
      expect(sending!.iceServerUrls).toEqual([`turn:127.0.0.1:${coturn.port}?transport=tcp`]);
      expect(sending!.localCandidateType).toBe('relay');
      expect(sending!.relayProtocol).toBe('tcp');

      await listener.goto(`${app.url}/${broadcaster.username}/studio-relay`);
      await listener.getByRole('button', { name: 'Play Studio Relay' }).click();
      await listener.waitForSelector('[data-testid=player-state][data-state=live]', {
        timeout: 30_000,
      });
      // Chromium's fake microphone beeps at 400 Hz
      expect(
        await toneProminence(listener, { audioSelector: AUDIO }, FAKE_MIC_HZ, 3000),
      ).toBeGreaterThan(30);
      const [later] = await peerConnectionRoutes(studio);
      expect(later!.localCandidateType).toBe('relay');
      expect(later!.audioPacketsSent).toBeGreaterThan(sending!.audioPacketsSent + 100);
    } finally {
      await listener.close();
      await studioBrowser.close();
    }
  }, 90_000);

  it('never hands relay credentials to refused or throttled callers', async () => {
    const offline = await createStation(app.url, owner, { name: 'Quiet FM', slug: 'quiet-fm' });
    const id = offline.station.id;
    const calls = {
      join: () =>
        fetch(`${app.url}/api/joinStationAsReceiver`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: app.url },
          body: JSON.stringify({ stationId: id }),
        }),
      whip: () =>
        fetch(`${app.url}/whip/${id}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/sdp', Authorization: 'Bearer not-a-token' },
          body: 'v=0\r\n',
        }),
    };
    const statuses = { join: new Set<number>(), whip: new Set<number>() };
    for (let i = 0; i < 15; i++) {
      for (const kind of ['join', 'whip'] as const) {
        const res = await calls[kind]();
        const body = await res.text();
        statuses[kind].add(res.status);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.headers.get('link')).toBeNull();
        expect(body).not.toMatch(/turn:|credential|iceServers/);
      }
    }
    // refused first (offline station, bad token), then throttled
    for (const kind of ['join', 'whip'] as const) {
      expect(statuses[kind].has(429)).toBe(true);
      expect([...statuses[kind]].some((s) => s !== 429)).toBe(true);
    }
  }, 60_000);
});
