/**
 * Chromium on each SFU engine: the studio in Debian's Chromium (fake capture device: a beep at
 * 400 Hz) goes live over WHIP, and a second Chromium hears it with the player on the station page
 * over WHEP, on the werift engine and on the mediasoup engine (its WebRtcServer: one UDP port per
 * worker, consecutive from RTC_UDP_PORT; two workers here, so the listener may sit on the worker the
 * station's feed is piped to). The mediasoup half runs wherever its worker is built
 * (scripts/build-mediasoup-worker.sh) and says why when skipped. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { MEDIA_ENGINE } from '../../apps/api/src/media/media.providers.js';
import {
  launchChromium,
  peerConnectionRoutes,
  recordPeerConnections,
  signInAt,
  toneProminence,
} from '../support/browser.js';
import { enginesHere, freeUdpPorts, selectedPairs } from '../support/engines.js';
import { audioLevel, startWebApp, until, watchProblems } from '../support/web-app.js';

const AUDIO = '[data-testid=station-audio]';
/** Chromium's fake microphone beeps at about -10 dBFS; silence measures below -90. */
const HEARD_DBFS = -45;
const FAKE_MIC_HZ = 400;

const ENGINES = enginesHere('engines-chromium');

describe.each(ENGINES)('Chromium publishes and listens on the %s engine', (engineName, skipped) => {
  const run = skipped ? it.skip : it;
  let app: TestApp;
  let udpPort: number;
  let broadcasterBrowser: Browser;
  let listenerBrowser: Browser;
  let user: TestUser;
  let studio: Page;
  let listener: Page;
  let problems: string[] = [];
  /** The engine's UDP ports: werift's one, mediasoup's one per worker (two here). */
  const ports = () => (engineName === 'mediasoup' ? [udpPort, udpPort + 1] : [udpPort]);

  beforeAll(async () => {
    if (skipped) return;
    udpPort = await freeUdpPorts(2);
    app = await startWebApp({
      MEDIA_ENGINE: engineName,
      RTC_UDP_PORT: String(udpPort),
      // mediasoup: two workers, on udpPort and udpPort + 1 (werift: its one port, shards as usual)
      ...(engineName === 'mediasoup' ? { SFU_SHARDS: '2' } : {}),
      ICE_SERVERS: '[]',
    });
    [broadcasterBrowser, listenerBrowser] = await Promise.all([
      launchChromium({ fakeMedia: true }),
      launchChromium(),
    ]);
    user = await signUp(app.url);
    studio = await broadcasterBrowser.newPage({ viewport: { width: 1280, height: 900 } });
    listener = await listenerBrowser.newPage();
    await Promise.all([recordPeerConnections(studio), recordPeerConnections(listener)]);
    studio.setDefaultTimeout(15_000);
    listener.setDefaultTimeout(15_000);
    problems = [...watchProblems(studio), ...watchProblems(listener)];
  }, 90_000);

  afterAll(async () => {
    await broadcasterBrowser?.close();
    await listenerBrowser?.close();
    await app?.close();
  }, 90_000);

  run(
    `${engineName}: the studio goes live from Chromium and the player in another Chromium plays it`,
    async () => {
      const engine = app.app.get<MediaEngine>(MEDIA_ENGINE);
      // the engine asked for is the one running
      expect(engine.constructor.name === 'MediasoupEngine').toBe(engineName === 'mediasoup');

      await signInAt(studio, app.url, user, '/studio');
      await studio.getByTestId('field-name').fill('Engine FM');
      await studio.getByTestId('create-station').click();
      await studio.getByTestId('broadcast').waitFor();
      await studio.getByTestId('source-microphone').check();
      await studio.getByTestId('input-device').waitFor();
      await studio.getByTestId('go-live').click();
      await studio.waitForSelector('[data-testid=broadcast-state][data-state=live]');
      await studio.waitForSelector('[data-testid=station-status][data-status=live]');
      expect(await studio.getByTestId('broadcast-message').count()).toBe(0);
      // the studio's audio reaches the SFU: its peer connection sends, and the engine has it
      const [sending] = await until(
        'the studio to send 100 audio packets',
        () => peerConnectionRoutes(studio),
        (r) => r[0]?.connectionState === 'connected' && r[0].audioPacketsSent > 100,
        15_000,
      );
      expect(sending!.connectionState).toBe('connected');
      await until(
        'the engine to take the studio as the publisher',
        async () => engine.stats().publishers,
        (n) => n === 1,
        10_000,
      );
      // published on the engine's own UDP port(s)
      const [pub] = await selectedPairs(studio);
      expect(ports()).toContain(pub!.remote.port);

      await listener.goto(`${app.url}/${user.username}/engine-fm`);
      await listener.waitForSelector('[data-testid=station-status][data-status=live]');
      await listener.getByRole('button', { name: 'Play Engine FM' }).click();
      await listener.waitForSelector('[data-testid=player-state][data-state=live]', {
        timeout: 30_000,
      });
      // it plays: the beep is loud, and it is the fake microphone's 400 Hz tone
      expect(await audioLevel(listener, AUDIO, 5000, HEARD_DBFS)).toBeGreaterThan(HEARD_DBFS);
      expect(
        await toneProminence(listener, { audioSelector: AUDIO }, FAKE_MIC_HZ, 3000, 30),
      ).toBeGreaterThan(30);
      // and the audio keeps coming, over the engine's port(s)
      const [before] = await peerConnectionRoutes(listener);
      const [after] = await until(
        '100 more audio packets at the listener',
        () => peerConnectionRoutes(listener),
        ([r]) => r!.audioPacketsReceived > before!.audioPacketsReceived + 100,
        15_000,
      );
      expect(after!.connectionState).toBe('connected');
      expect(after!.audioBytesReceived).toBeGreaterThan(before!.audioBytesReceived);
      const [listen] = await selectedPairs(listener);
      expect(ports()).toContain(listen!.remote.port);
      expect(engine.stats().listeners).toBe(1);
      // the studio counts that listener
      await studio.waitForSelector('[data-testid=station-listeners][data-count="1"]', {
        timeout: 10_000,
      });
      expect(problems).toEqual([]);

      // ending the broadcast in the studio takes the station off air for the listener
      await studio.getByTestId('end-broadcast').click();
      await studio.getByTestId('end-dialog-confirm').click();
      await listener.waitForSelector('[data-testid=station-status][data-status=ended]', {
        timeout: 15_000,
      });
      await until(
        'the engine to drop the publisher',
        async () => engine.stats().publishers,
        (n) => n === 0,
        10_000,
      );
    },
    120_000,
  );
});
