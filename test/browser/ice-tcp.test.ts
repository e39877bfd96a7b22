/**
 * ICE over TCP on the node's one TCP port (RFC 6544 passive candidates, RFC 4571 framing): Debian's
 * Chromium with the profile preference `webrtc.ip_handling_policy = disable_non_proxied_udp` (no UDP
 * except through a proxy or TURN; there is neither here) hears a station through the station page, connected to the SFU's TCP port. The
 * embedded SFU serves every session on RTC_UDP_PORT and RTC_TCP_PORT. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext } from 'playwright-core';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { MEDIA_ENGINE } from '../../apps/api/src/media/media.providers.js';
import { launchChromiumWithoutUdp, toneOverOther } from '../support/browser.js';
import { type CliBroadcast, stationOnAirWithTone, startWebApp } from '../support/web-app.js';

const TONE_HZ = 440;

describe('a listener whose UDP is blocked connects over ICE-TCP, without a relay', () => {
  let app: TestApp;
  let browser: BrowserContext;
  let owner: TestUser;
  let slug: string;
  let cli: CliBroadcast | undefined;

  beforeAll(async () => {
    app = await startWebApp({ RTC_UDP_PORT: '0', RTC_TCP_PORT: '0', ICE_SERVERS: '[]' });
    browser = await launchChromiumWithoutUdp();
    let created;
    ({ owner, created, cli } = await stationOnAirWithTone(
      app.url,
      { name: 'TCP FM', slug: 'tcp-fm' },
      TONE_HZ,
    ));
    slug = created.station.slug;
  }, 90_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    await app?.close();
  });

  it('plays the tone over the TCP port', async () => {
    const engine = app.app.get<MediaEngine>(MEDIA_ENGINE);
    const net = engine.stats().net!;
    expect(net.udpPort).toBeGreaterThan(0);
    expect(net.tcpPort).toBeGreaterThan(0);
    const page = await browser.newPage();
    // what the page offers: no UDP candidate at all under this policy
    const offers: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/whep\//.test(r.url())) offers.push(r.postData() ?? '');
    });
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    await page.getByRole('button', { name: 'Play TCP FM' }).click();
    await page.waitForSelector('[data-testid=player-state][data-state=live]', { timeout: 30_000 });
    const { at: at440, other: at1000 } = await toneOverOther(
      page,
      { audioSelector: '[data-testid=station-audio]' },
      TONE_HZ,
      1000,
    );
    expect(at440).toBeGreaterThanOrEqual(20);
    expect(at1000).toBeLessThan(at440 - 15);
    expect(offers.length).toBeGreaterThan(0);
    for (const c of offers
      .join('\n')
      .split(/\r?\n/)
      .filter((l) => l.startsWith('a=candidate:'))) {
      expect(c).not.toMatch(/ udp /i);
    }
    // the listener's media runs on a connection accepted by the node's TCP port
    expect(engine.stats().net!.tcpConnections).toBeGreaterThanOrEqual(1);
    await page.close();
  }, 90_000);
});
