/**
 * Consent freshness (RFC 7675) between Debian's Chromium and the SFU's one UDP port, where the
 * listener shard answers the browser's checks and sends its own without werift
 * (apps/sfu/src/werift/listener-consent.ts). A browser that stopped getting valid answers would
 * drop the session after 30 s, and the SFU stops sending 30 s after its own checks go unanswered;
 * both show here in seconds, in the browser's ICE statistics and the shard's counters.
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { MEDIA_ENGINE } from '../../apps/api/src/media/media.providers.js';
import {
  launchChromium,
  peerConnectionRoutes,
  recordPeerConnections,
  toneProminence,
} from '../support/browser.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
  until,
} from '../support/web-app.js';

const TONE_HZ = 440;

describe('consent checks between Chromium and the SFU on its one UDP port', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let slug: string;
  let cli: CliBroadcast | undefined;

  beforeAll(async () => {
    app = await startWebApp({ RTC_UDP_PORT: '0', ICE_SERVERS: '[]' });
    browser = await launchChromium();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Port FM', slug: 'port-fm' });
    slug = created.station.slug;
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
  });

  it("Chromium answers the shard's checks and its own are answered, while the tone plays", async () => {
    const engine = app.app.get<MediaEngine>(MEDIA_ENGINE);
    // answers to the shard's own consent checks, over its shards
    const granted = () =>
      engine.stats().perShard.reduce((a, s) => a + (s.consent?.granted ?? 0), 0);
    const page = await browser.newPage();
    await recordPeerConnections(page);
    await page.goto(`${app.url}/${owner.username}/${slug}`);
    await page.getByRole('button', { name: 'Play Port FM' }).click();
    await page.waitForSelector('[data-testid=player-state][data-state=live]', { timeout: 30_000 });

    // the shard's first own check goes out 4–6 s after it took the session over
    const counted = await until(
      "Chromium to answer the shard's consent checks",
      async () => granted(),
      (n) => n >= 1,
      20_000,
    );
    expect(counted).toBeGreaterThanOrEqual(1);

    const [before] = await peerConnectionRoutes(page);
    // the shard's next check goes out 4–6 s later (on its presence tick, every 0.5 s)
    await until(
      "Chromium to answer the shard's next check",
      async () => granted(),
      (n) => n > counted,
      10_000,
    );
    // Chromium checks every ~2.5 s: within a few seconds some of its own checks are answered
    const [after] = await until(
      "answers to Chromium's own checks and 200 more audio packets",
      () => peerConnectionRoutes(page),
      ([r]) =>
        r!.stun.responsesReceived > before!.stun.responsesReceived &&
        r!.audioPacketsReceived > before!.audioPacketsReceived + 200,
      20_000,
    );
    expect(after!.connectionState).toBe('connected');
    // Chromium counts only answers that pass its MESSAGE-INTEGRITY and FINGERPRINT checks. The shard
    // answers those on the pair it sends on; libwebrtc may move to another pair it likes better (the
    // SFU's 127.0.0.1 after its eth0 address) and check only there, where werift answers
    expect(after!.stun.responsesReceived).toBeGreaterThan(before!.stun.responsesReceived);
    // and the shard's checks reached it, signed with its password
    expect(after!.stun.requestsReceived).toBeGreaterThanOrEqual(1);
    expect(after!.stun.responsesSent).toBeGreaterThanOrEqual(1);
    expect(after!.audioPacketsReceived).toBeGreaterThan(before!.audioPacketsReceived + 200);
    expect(
      await toneProminence(page, { audioSelector: '[data-testid=station-audio]' }, TONE_HZ, 2000),
    ).toBeGreaterThanOrEqual(20);
  }, 90_000);
});
