import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RTCPeerConnection } from '@radiobroadcaster/sfu/client';
import type { Station } from '@radiobroadcaster/contracts';
import type { TestUser } from '../../apps/api/testing/test-app.js';
import { waitUntil } from '../support/processes.js';
import {
  createRadioStation,
  decodeOpusMono,
  ffmpeg,
  icecastSource,
  listenWebRtc,
  oggListener,
  rawSource,
  startRadioApi,
  toneCheck,
  type FfmpegRun,
  type RadioStation,
} from '../support/radio.js';

/**
 * Icecast-protocol sources against the process `npm start` runs: Debian's ffmpeg publishes a sine
 * as Ogg/Opus and as MP3 (PUT and the legacy SOURCE method); a WebRTC listener hears the tone.
 */
/** The grace period the radio API runs with (PUBLISHER_GRACE_MS). */
const GRACE_S = 1.5;
/** Failed logins per address and minute (the other tests fail a few times from 127.0.0.1). */
const FAILED_LOGINS = 8;

describe('Icecast-protocol ingest (ffmpeg → /ingest → WebRTC listener)', () => {
  let radio: Awaited<ReturnType<typeof startRadioApi>>;
  let api: Awaited<ReturnType<typeof startRadioApi>>['api'];
  let owner: TestUser;
  let port: number;
  const running: FfmpegRun[] = [];

  beforeAll(async () => {
    radio = await startRadioApi({
      RATE_LIMIT_JOIN_PER_MINUTE: '1000',
      RATE_LIMIT_SOURCE_AUTH_PER_MINUTE: String(FAILED_LOGINS),
      LOG_LEVEL: 'info',
    });
    ({ api, owner } = radio);
    port = Number(new URL(api.url).port);
  }, 60_000);

  afterAll(async () => {
    for (const r of running) await r.stop();
    await radio?.stop();
  });

  const current = async (id: string): Promise<Station> =>
    (await (await fetch(`${api.url}/api/stations/${id}`)).json()) as Station;
  const sourceUrl = (s: RadioStation, key = s.key) =>
    `icecast://source:${key}@127.0.0.1:${port}${s.settings.icecast.mount}`;
  const start = (run: FfmpegRun) => (running.push(run), run);
  const waitStatus = (id: string, status: Station['status'], ms = 15_000) =>
    waitUntil(async () => (await current(id)).status === status, ms, `station ${status}`);

  /** A WebRTC listener hears `frequency` (and not the others) on the station: 2 s of it. */
  const expectTone = async (s: RadioStation, frequency: number) => {
    const packets = await listenWebRtc(api.url, s.id, 2500);
    expect(packets.length).toBeGreaterThan(50);
    const pcm = decodeOpusMono(packets).subarray(48000 / 2); // past the decoder's start
    const { at, elsewhere } = toneCheck(pcm, frequency);
    expect(at).toBeGreaterThan(0.0005); // ffmpeg's sine is at 1/8 of full scale
    expect(at).toBeGreaterThan(elsewhere * 100);
  };

  it('Ogg/Opus over PUT goes live untouched; a second source gets 403; metadata sets now playing; it ends after the grace', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Opus');
    expect(s.settings.icecast.mount).toBe(`/ingest/${owner.username}/ice-opus`);
    const source = start(icecastSource(sourceUrl(s), { frequency: 440, format: 'ogg' }));
    await waitStatus(s.id, 'live');
    await expectTone(s, 440);

    const second = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: `source:${s.key}`,
      contentType: 'audio/ogg',
    });
    expect(second.status).toBe(403);
    expect(JSON.parse(second.body)).toEqual({
      error: 'Forbidden',
      message: 'This station is already live from another source',
    });
    expect(source.child.exitCode).toBeNull();

    const meta = await fetch(
      `${api.url}/admin/metadata?mode=updinfo&mount=${encodeURIComponent(s.settings.icecast.mount)}&song=${encodeURIComponent('The Testers - Sine Of The Times')}`,
      { headers: { Authorization: `Basic ${Buffer.from(`source:${s.key}`).toString('base64')}` } },
    );
    expect(meta.status).toBe(200);
    expect(await meta.text()).toContain('<return>1</return>');
    expect((await current(s.id)).nowPlaying).toEqual({
      track: 'Sine Of The Times',
      artist: 'The Testers',
      album: null,
    });
    const badMeta = await fetch(
      `${api.url}/admin/metadata?mode=updinfo&mount=${encodeURIComponent(s.settings.icecast.mount)}&song=x`,
      {
        headers: { Authorization: `Basic ${Buffer.from('source:rbsk_wrong').toString('base64')}` },
      },
    );
    expect(badMeta.status).toBe(401);
    expect(badMeta.headers.get('www-authenticate')).toMatch(/^Basic/);

    await expectTone(s, 440); // the first source kept going
    await source.stop();
    await waitStatus(s.id, 'offline', 15_000);
  }, 90_000);

  it('a WHIP offer with the stream key that never connects does not cut the live Icecast source', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Keep');
    const source = start(icecastSource(sourceUrl(s), { frequency: 440, format: 'ogg' }));
    await waitStatus(s.id, 'live');
    const listener = await oggListener(`${api.url}/listen/${owner.username}/${s.slug}.ogg`);
    expect(listener.status).toBe(200);
    await waitUntil(async () => listener.seconds() > 1.5, 10_000, 'audio at the HTTP listener');

    // OBS (say) sends an offer with the same key, and its peer never connects
    const pc = new RTCPeerConnection({});
    pc.addTransceiver('audio', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    try {
      const whip = await fetch(`${api.url}/whip/${s.id}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${s.key}`, 'Content-Type': 'application/sdp' },
        body: pc.localDescription!.sdp,
      });
      expect(whip.status).toBe(201);
      const heard = listener.seconds();
      const t0 = Date.now();
      // past the engine's publisher timeout (5 s) and the grace (1.5 s): the Icecast source goes on
      await waitUntil(async () => Date.now() - t0 > 8000, 15_000, '8 s');
      expect(listener.seconds() - heard).toBeGreaterThan(6);
      expect(source.child.exitCode).toBeNull();
      expect((await current(s.id)).status).toBe('live');
      expect(api.output()).not.toMatch(/source on \/ingest\/[^/]+\/ice-keep closed/);
      await expectTone(s, 440);
      await source.stop();
    } finally {
      listener.stop();
      await pc.close();
    }
    await waitStatus(s.id, 'offline', 15_000);
  }, 90_000);

  it('holds a source faster than real time (ffmpeg without -re) to play time, and ends within the grace after it left', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Fast');
    const clip = join(mkdtempSync(join(tmpdir(), 'rb-fast-')), 'clip.ogg');
    const make = ffmpeg(
      ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '10', '-ac', '2'].concat([
        '-c:a',
        'libopus',
        '-b:a',
        '96k',
        '-page_duration',
        '20000',
        clip,
      ]),
    );
    expect(await make.exited).toBe(0);
    // 210 s of audio sent as fast as TCP takes it: far more than the kernel's socket buffers hold
    const source = start(
      ffmpeg(
        ['-stream_loop', '20', '-i', clip, '-c', 'copy', '-content_type', 'audio/ogg'].concat([
          '-f',
          'ogg',
          sourceUrl(s),
        ]),
      ),
    );
    await waitStatus(s.id, 'live');
    const listener = await oggListener(`${api.url}/listen/${owner.username}/${s.slug}.ogg`);
    try {
      expect(listener.status).toBe(200);
      const t0 = Date.now();
      let ended = false;
      void listener.ended.then(() => (ended = true));
      await waitUntil(async () => ended || Date.now() - t0 >= 10_000, 15_000, 'a 10 s window');
      const windowS = (Date.now() - t0) / 1000;
      const heard = listener.seconds();
      console.log(`fast source: ${heard.toFixed(1)} s of audio in ${windowS.toFixed(1)} s`);
      // real time and the burst a new listener gets (1 s), nothing more
      expect(heard).toBeLessThanOrEqual(windowS + 1.5);
      expect(heard).toBeGreaterThan(3);
      const left = await source.exited.then(() => Date.now());
      await waitStatus(s.id, 'offline', 60_000);
      const after = (Date.now() - left) / 1000;
      console.log(
        `fast source: ffmpeg exited after ${((left - t0) / 1000).toFixed(1)} s, offline ${after.toFixed(1)} s later`,
      );
      // what it sent ahead plays out first (at most 4 s, held to play time), then the grace
      expect(after).toBeLessThan(GRACE_S + 4 + 2);
      await waitUntil(
        async () => /sends faster than real time/.test(api.output()),
        5000,
        'the log',
      );
    } finally {
      listener.stop();
    }
  }, 120_000);

  it('MP3 over PUT is decoded and encoded to Opus', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Mp3');
    start(icecastSource(sourceUrl(s), { frequency: 660, format: 'mp3' }));
    await waitStatus(s.id, 'live');
    await expectTone(s, 660);
  }, 60_000);

  it('MP3 over the legacy SOURCE method (-legacy_icecast 1)', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Legacy');
    start(icecastSource(sourceUrl(s), { frequency: 880, format: 'mp3', legacy: true }));
    await waitStatus(s.id, 'live');
    await expectTone(s, 880);
  }, 60_000);

  it('refuses a wrong key (401 + WWW-Authenticate), an unknown mount (404) and other formats (415)', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Refusals');
    const wrong = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: 'source:rbsk_not-the-key',
      contentType: 'audio/ogg',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.head).toMatch(/\r\nWWW-Authenticate: Basic realm="Radio Broadcaster"/);
    expect(JSON.parse(wrong.body)).toEqual({
      error: 'Unauthorized',
      message: 'Invalid stream key',
    });
    const noAuth = await rawSource(port, { method: 'SOURCE', path: s.settings.icecast.mount });
    expect(noAuth.status).toBe(401);
    const unknown = await rawSource(port, {
      path: `/ingest/${owner.username}/no-such-station`,
      auth: `source:${s.key}`,
      contentType: 'audio/ogg',
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error).toBe('StationNotFoundError');
    const aac = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: `source:${s.key}`,
      contentType: 'audio/aac',
    });
    expect(aac.status).toBe(415);
    expect(JSON.parse(aac.body).message).toBe(
      'Unsupported Content-Type audio/aac: send audio/ogg (Opus) or audio/mpeg (MP3)',
    );
    // ffmpeg with the wrong key fails and says why
    const bad = start(
      icecastSource(sourceUrl(s, 'rbsk_nope'), { frequency: 440, format: 'ogg', seconds: 2 }),
    );
    expect(await bad.exited).not.toBe(0);
    expect(bad.stderr()).toMatch(/401|Unauthorized/);
    // the rest of the API is unaffected by all this
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    expect((await current(s.id)).status).toBe('offline');
  }, 60_000);

  it('throttles failed logins per address (SOURCE/PUT and /admin/metadata): 429 with Retry-After; a right key still works for others', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Throttle');
    const from = '127.0.0.2';
    const attempt = (key: string) =>
      rawSource(port, {
        path: s.settings.icecast.mount,
        auth: `source:${key}`,
        contentType: 'audio/ogg',
        localAddress: from,
      });
    const metadata = (key: string, localAddress: string) =>
      new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const q = `mode=updinfo&mount=${encodeURIComponent(s.settings.icecast.mount)}&song=x`;
        const req = httpGet(
          {
            host: '127.0.0.1',
            port,
            localAddress,
            path: `/admin/metadata?${q}`,
            headers: { Authorization: `Basic ${Buffer.from(`source:${key}`).toString('base64')}` },
          },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                retryAfter: res.headers['retry-after'] as string | undefined,
                body,
              }),
            );
          },
        );
        req.on('error', reject);
      });
    for (let i = 0; i < FAILED_LOGINS; i++)
      expect((await attempt(`rbsk_guess${i}`)).status).toBe(401);
    const limited = await attempt('rbsk_one-more');
    expect(limited.status).toBe(429);
    expect(Number(/\r\nRetry-After: (\d+)/.exec(limited.head)?.[1])).toBeGreaterThan(0);
    expect(JSON.parse(limited.body)).toEqual({
      error: 'TooManyRequests',
      message: expect.stringMatching(/^Too many failed source logins, try again in \d+ seconds$/),
    });
    // that address is held off whatever it sends, on both routes
    expect((await attempt(s.key)).status).toBe(429);
    const meta = await metadata('rbsk_wrong', from);
    expect(meta.status).toBe(429);
    expect(Number(meta.retryAfter)).toBeGreaterThan(0);
    expect(meta.body).toContain('<return>0</return>');
    // others are not: the right key from another address updates the metadata and goes live
    expect((await metadata(s.key, '127.0.0.1')).status).toBe(200);
    const ok = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: `source:${s.key}`,
      contentType: 'audio/ogg',
    });
    expect(ok.status).toBe(200);
    ok.destroy();
  }, 60_000);

  it('closes garbage and non-Opus Ogg sources with a logged reason; the station stays offline', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Garbage');
    const garbage = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: `source:${s.key}`,
      contentType: 'audio/ogg',
      body: randomBytes(4096),
    });
    expect(garbage.status).toBe(200);
    await garbage.closed;
    const vorbis = start(
      ffmpeg([
        '-re',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:sample_rate=48000',
        '-t',
        '5',
        '-c:a',
        'libvorbis',
        '-content_type',
        'audio/ogg',
        '-f',
        'ogg',
        sourceUrl(s),
      ]),
    );
    await vorbis.exited;
    await waitUntil(
      async () => /not an Opus stream: it carries Vorbis/.test(api.output()),
      5000,
      'the Vorbis refusal in the log',
    );
    expect(api.output()).toMatch(/not an Ogg stream/);
    expect((await current(s.id)).status).toBe('offline');
  }, 60_000);

  it('a source that stalls ends the broadcast after the timeout and grace; key rotation cuts a source off', async () => {
    const s = await createRadioStation(api.url, owner, 'Ice Stall');
    // two seconds of real Ogg/Opus, then silence on an open connection
    const clip = ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:sample_rate=48000',
      '-t',
      '2',
      '-c:a',
      'libopus',
      '-page_duration',
      '20000',
      '-f',
      'ogg',
      'pipe:1',
    ]);
    const bytes: Buffer[] = [];
    clip.child.stdout!.removeAllListeners('data');
    clip.child.stdout!.on('data', (d: Buffer) => bytes.push(d));
    await clip.exited;
    const stalled = await rawSource(port, {
      path: s.settings.icecast.mount,
      auth: `source:${s.key}`,
      contentType: 'audio/ogg',
      body: Buffer.concat(bytes),
    });
    expect(stalled.status).toBe(200);
    await waitStatus(s.id, 'live');
    const t0 = Date.now();
    await waitStatus(s.id, 'offline', 20_000);
    expect(Date.now() - t0).toBeGreaterThan(3000);
    await stalled.closed; // the server hung up on it

    // rotation: the source using the old key is cut off, and the new key works
    const source = start(icecastSource(sourceUrl(s), { frequency: 440, format: 'ogg' }));
    await waitStatus(s.id, 'live');
    const rotated = await fetch(`${api.url}/api/stations/stream-key/rotate`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ stationId: s.id }),
    });
    const { streamKey } = (await rotated.json()) as { streamKey: string };
    await source.exited;
    await waitStatus(s.id, 'offline', 15_000);
    const again = start(icecastSource(sourceUrl(s, streamKey), { frequency: 550, format: 'ogg' }));
    await waitStatus(s.id, 'live');
    await expectTone(s, 550);
    await again.stop();
  }, 90_000);
});
