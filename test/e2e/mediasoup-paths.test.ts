import { afterAll, beforeAll, describe, expect, it as itRun } from '@jest/globals';
import type { Station } from '@radiobroadcaster/contracts';
import type { TestUser } from '../../apps/api/testing/test-app.js';
import { MEDIASOUP_MISSING } from '../support/engines.js';
import { waitUntil } from '../support/processes.js';
import {
  createRadioStation,
  decodeOpusMono,
  ffmpegListen,
  icecastSource,
  listenWebRtc,
  startRadioApi,
  toneCheck,
  type FfmpegRun,
} from '../support/radio.js';

/**
 * The packet paths on the mediasoup engine, against the process `npm start` runs with
 * MEDIA_ENGINE=mediasoup and two workers: Debian's ffmpeg publishes a sine as an Icecast source (a
 * packet publisher into the engine); a WebRTC listener (the CLI's WHEP) and an HTTP listener (the
 * engine's tap, Ogg/Opus that ffmpeg plays) hear it; the station ends one grace after the source.
 * WHIP publishing to WHEP listeners on mediasoup: live-audio.test.ts. Skipped, with the reason,
 * where the worker is not built (scripts/build-mediasoup-worker.sh).
 */
const it = MEDIASOUP_MISSING ? itRun.skip : itRun;

describe('mediasoup engine: Icecast ingest → WebRTC and HTTP listeners', () => {
  let radio: Awaited<ReturnType<typeof startRadioApi>>;
  let api: Awaited<ReturnType<typeof startRadioApi>>['api'];
  let owner: TestUser;
  const running: FfmpegRun[] = [];

  beforeAll(async () => {
    if (MEDIASOUP_MISSING) return;
    radio = await startRadioApi({
      MEDIA_ENGINE: 'mediasoup',
      SFU_SHARDS: '2',
      RATE_LIMIT_JOIN_PER_MINUTE: '1000',
      LOG_LEVEL: 'info',
    });
    ({ api, owner } = radio);
  }, 60_000);

  afterAll(async () => {
    for (const r of running) await r.stop();
    await radio?.stop();
  });

  const current = async (id: string): Promise<Station> =>
    (await (await fetch(`${api.url}/api/stations/${id}`)).json()) as Station;

  it('ffmpeg as an Icecast source is heard over WebRTC and over HTTP; the station ends after the source', async () => {
    expect(api.output()).toContain('SFU engine: mediasoup (MEDIA_ENGINE=mediasoup');
    const s = await createRadioStation(api.url, owner, 'Soup FM');
    const port = new URL(api.url).port;
    const source = icecastSource(
      `icecast://source:${s.key}@127.0.0.1:${port}${s.settings.icecast.mount}`,
      { frequency: 440, format: 'ogg' },
    );
    running.push(source);
    await waitUntil(async () => (await current(s.id)).status === 'live', 15_000, 'live');

    // WebRTC (WHEP): 2.5 s of the tone
    const packets = await listenWebRtc(api.url, s.id, 2500);
    expect(packets.length).toBeGreaterThan(50);
    const tone = toneCheck(decodeOpusMono(packets).subarray(48000 / 2), 440);
    expect(tone.at).toBeGreaterThan(0.0005);
    expect(tone.at).toBeGreaterThan(tone.elsewhere * 100);

    // HTTP (the engine's tap → Ogg/Opus), played by ffmpeg
    const pcm = await ffmpegListen(`${api.url}/listen/${owner.username}/${s.slug}.ogg`, 3);
    expect(pcm.length).toBeGreaterThan(48000 * 2.5);
    const heard = toneCheck(pcm.subarray(4800), 440);
    expect(heard.at).toBeGreaterThan(0.0005);
    expect(heard.at).toBeGreaterThan(heard.elsewhere * 100);

    await source.stop();
    await waitUntil(async () => (await current(s.id)).status === 'offline', 15_000, 'offline');
  }, 90_000);
});
