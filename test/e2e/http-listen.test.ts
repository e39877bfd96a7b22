import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BroadcastSettings, Station } from '@radiobroadcaster/contracts';
import type { TestUser } from '../../apps/api/testing/test-app.js';
import { runCliProcess, waitUntil, type RunningProcess } from '../support/processes.js';
import { holdsFor } from '../support/wait.js';
import {
  createRadioStation,
  ffmpegListen,
  listenWebRtc,
  oggListener,
  startRadioApi,
  icecastSource,
  toneCheck,
  type FfmpegRun,
  type RadioStation,
} from '../support/radio.js';

/**
 * HTTP listening against the process `npm start` runs: ffmpeg reads `/listen/{user}/{slug}.ogg`
 * (or `.mp3`) while the CLI publishes over WHIP (with the stream key as its bearer) or ffmpeg over Icecast.
 */
/** Streams one address may hold at once, WebRTC and HTTP together (the MP3 test holds 3). */
const PER_IP = 3;
/** Of which viewerCount counts (VIEWER_COUNT_PER_ADDRESS): every test's listener is 127.0.0.1. */
const COUNTED_PER_ADDRESS = 2;

describe('HTTP listening (/listen/…ogg, .mp3, .m3u, .pls)', () => {
  let radio: Awaited<ReturnType<typeof startRadioApi>>;
  let api: Awaited<ReturnType<typeof startRadioApi>>['api'];
  let owner: TestUser;
  let s: RadioStation;
  let broadcaster: RunningProcess | undefined;
  const sources: FfmpegRun[] = [];

  beforeAll(async () => {
    radio = await startRadioApi({
      MAX_LISTENERS_PER_IP: String(PER_IP),
      VIEWER_COUNT_PER_ADDRESS: String(COUNTED_PER_ADDRESS),
    });
    ({ api, owner } = radio);
    s = await createRadioStation(api.url, owner, 'Http Tone');
  }, 60_000);

  afterAll(async () => {
    await broadcaster?.stop('SIGKILL');
    for (const r of sources) await r.stop();
    await radio?.stop();
  });

  const current = async (id: string): Promise<Station> =>
    (await (await fetch(`${api.url}/api/stations/${id}`)).json()) as Station;
  const listenUrl = (st: RadioStation, ext = 'ogg') =>
    `${api.url}/listen/${owner.username}/${st.slug}.${ext}`;
  const metric = async (name: string) => {
    const text = await (await fetch(`${api.url}/metrics`)).text();
    return new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1];
  };
  /** Reads a stream until `bytes` have arrived; resolves to what came. */
  const readAtLeast = async (reader: ReadableStreamDefaultReader<Uint8Array>, bytes: number) => {
    const chunks: Uint8Array[] = [];
    let n = 0;
    while (n < bytes) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
      n += r.value.length;
    }
    return Buffer.concat(chunks);
  };

  it('is a 404 STATION_NOT_ACTIVE while offline; the playlists point at the streams', async () => {
    expect(s.settings.listen.ogg).toBe(listenUrl(s));
    expect(s.settings.listen.mp3).toBe(listenUrl(s, 'mp3'));
    for (const ext of ['ogg', 'mp3']) {
      const offline = await fetch(listenUrl(s, ext));
      expect(offline.status).toBe(404);
      expect(await offline.json()).toEqual({
        error: 'STATION_NOT_ACTIVE',
        message: 'This station is not currently broadcasting',
      });
      expect((await fetch(`${api.url}/listen/${owner.username}/nope.${ext}`)).status).toBe(404);
    }
    expect((await fetch(listenUrl(s, 'aac'))).status).toBe(404);
    const m3u = await fetch(listenUrl(s, 'm3u'));
    expect(m3u.headers.get('content-type')).toMatch(/^audio\/x-mpegurl/);
    const title = `Http Tone by @${owner.username}`;
    expect(await m3u.text()).toBe(
      `#EXTM3U\n#EXTINF:-1,${title}\n${listenUrl(s)}\n#EXTINF:-1,${title}\n${listenUrl(s, 'mp3')}\n`,
    );
    const pls = await fetch(listenUrl(s, 'pls'));
    expect(pls.headers.get('content-type')).toBe('audio/x-scpls');
    const text = await pls.text();
    expect(text).toMatch(/^\[playlist\]\nNumberOfEntries=2\n/);
    expect(text).toContain(`File1=${listenUrl(s)}\nTitle1=${title}\nLength1=-1\n`);
    expect(text).toContain(`File2=${listenUrl(s, 'mp3')}\nTitle2=${title}\nLength2=-1\n`);
  });

  it('streams a WHIP broadcast (stream key as bearer) as Ogg/Opus that ffmpeg plays, counted in viewerCount', async () => {
    broadcaster = runCliProcess([
      'broadcast',
      '--station',
      `${owner.username}/${s.slug}`,
      '--server',
      api.url,
      '--token',
      s.key,
      '--tone',
      '440',
      '--duration',
      '120',
    ]);
    await waitUntil(async () => (await current(s.id)).status === 'live', 20_000, 'live');

    const head = await fetch(listenUrl(s), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('audio/ogg');
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('icy-name')).toBe('Http Tone');
    expect(head.headers.get('icy-description')).toBe('Live radio streaming.');
    expect(head.headers.get('icy-url')).toBe(`${api.url}/${owner.username}/${s.slug}`);

    // the burst: a second of audio at once, so players start at once
    const t0 = Date.now();
    const res = await fetch(listenUrl(s));
    // the stream as Icecast sends it: no chunk framing, ended by closing the connection
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('connection')).toBe('close');
    const reader = res.body!.getReader();
    let bytes = 0;
    while (bytes < 8000) bytes += (await reader.read()).value?.length ?? 0;
    expect(Date.now() - t0).toBeLessThan(1000);
    await waitUntil(async () => (await current(s.id)).viewerCount === 1, 5000, 'viewerCount 1');
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).toContain('rb_listeners_by_transport{transport="http"} 1');
    await reader.cancel();
    await waitUntil(async () => (await current(s.id)).viewerCount === 0, 5000, 'viewerCount 0');

    const pcm = await ffmpegListen(listenUrl(s), 3);
    expect(pcm.length).toBeGreaterThan(48000 * 2.5);
    const { at, elsewhere } = toneCheck(pcm.subarray(4800), 440);
    expect(at).toBeGreaterThan(0.0005);
    expect(at).toBeGreaterThan(elsewhere * 100);
  }, 90_000);

  it('streams the broadcast as MP3 that ffmpeg plays, one encoder shared by all MP3 listeners', async () => {
    const head = await fetch(listenUrl(s, 'mp3'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('audio/mpeg');
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('icy-name')).toBe('Http Tone');
    expect(await metric('rb_http_mp3_encoders')).toBe('0');

    // The first MP3 listener starts the station's encoder; each stream starts at a frame header.
    const first = (await fetch(listenUrl(s, 'mp3'))).body!.getReader();
    const a = await readAtLeast(first, 8000);
    expect(a.readUInt16BE(0) & 0xffe0).toBe(0xffe0);
    // A second one shares it and gets a second of audio at once.
    const t0 = Date.now();
    const second = (await fetch(listenUrl(s, 'mp3'))).body!.getReader();
    const b = await readAtLeast(second, 12_000);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(b.readUInt16BE(0) & 0xffe0).toBe(0xffe0);
    await waitUntil(async () => (await current(s.id)).viewerCount === 2, 5000, 'viewerCount 2');
    expect(await metric('rb_listeners_by_transport{transport="http"}')).toBe('2');
    expect(await metric('rb_http_mp3_encoders')).toBe('1');

    const pcm = await ffmpegListen(listenUrl(s, 'mp3'), 3);
    expect(pcm.length).toBeGreaterThan(48000 * 2.5);
    const { at, elsewhere } = toneCheck(pcm.subarray(4800), 440);
    expect(at).toBeGreaterThan(0.0005);
    expect(at).toBeGreaterThan(elsewhere * 100);

    // The encoder stops after the last MP3 listener leaves.
    await first.cancel();
    await second.cancel();
    await waitUntil(async () => (await current(s.id)).viewerCount === 0, 5000, 'viewerCount 0');
    await waitUntil(
      async () => (await metric('rb_http_mp3_encoders')) === '0',
      5000,
      'the encoder to stop',
    );
  }, 60_000);

  it('caps the streams one address holds, WebRTC and HTTP together (429 above MAX_LISTENERS_PER_IP); viewerCount counts one address VIEWER_COUNT_PER_ADDRESS times at most', async () => {
    // a WebRTC listener from this address takes one of its places
    const webrtc = listenWebRtc(api.url, s.id, 8000);
    await waitUntil(async () => (await current(s.id)).viewerCount === 1, 15_000, 'WebRTC');
    const held = [await oggListener(listenUrl(s)), await oggListener(listenUrl(s))];
    expect(held.map((l) => l.status)).toEqual([200, 200]);
    for (const ext of ['ogg', 'mp3']) {
      const refused = await fetch(listenUrl(s, ext));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({
        error: 'TooManyRequests',
        message: `Too many listening sessions from your address (at most ${PER_IP})`,
      });
    }
    // a HEAD takes no place; the 3 streams of this one address count as 2 in what everyone sees,
    // and stay 3 in the metrics
    expect((await fetch(listenUrl(s), { method: 'HEAD' })).status).toBe(200);
    expect(await metric('rb_listeners_by_transport{transport="http"}')).toBe('2');
    await waitUntil(
      async () => (await current(s.id)).viewerCount === COUNTED_PER_ADDRESS,
      5000,
      'the count per address',
    );
    await holdsFor(
      async () => (await current(s.id)).viewerCount === COUNTED_PER_ADDRESS,
      1500,
      'viewerCount stays at the count per address',
      250,
    );
    // a place is free again once a stream ends
    held[0]!.stop();
    await waitUntil(
      async () => {
        const again = await fetch(listenUrl(s));
        await again.body?.cancel();
        return again.status === 200;
      },
      5000,
      'a free place',
    );
    held[1]!.stop();
    await webrtc;
    await waitUntil(async () => (await current(s.id)).viewerCount === 0, 10_000, 'viewerCount 0');
  }, 60_000);

  it('refuses sites the owner did not allow (Origin or Referer); listed domains make the plain URL private, signed links play', async () => {
    const allow = await fetch(`${api.url}/api/me/allowed-domains`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json', Origin: api.url },
      body: JSON.stringify({ domain: 'radio-fan.example' }),
    });
    expect(allow.status).toBeLessThan(300);
    const head = (headers: Record<string, string>, ext = 'ogg', query = '') =>
      fetch(listenUrl(s, ext) + query, { method: 'HEAD', headers }).then((r) => r.status);
    expect(await head({ Origin: 'https://elsewhere.example' })).toBe(403);
    expect(await head({ Referer: 'https://elsewhere.example/player.html' })).toBe(403);
    const denied = await fetch(listenUrl(s), { headers: { Origin: 'https://elsewhere.example' } });
    expect((await denied.json()).error).toBe('DOMAIN_NOT_ALLOWED');
    // Listing domains turned "Public stream URL" off: what sends no page (VLC, a page with
    // no-referrer) and what claims an allowed page alike need a signed link now.
    // (lookups are reused for a second and refreshed behind the next answer)
    await waitUntil(async () => (await head({})) === 403, 5000, 'the default to apply');
    expect(await head({}, 'mp3')).toBe(403);
    expect(await head({ Referer: 'https://radio-fan.example/live' })).toBe(403);
    const settings = async () =>
      (await (
        await fetch(`${api.url}/api/stations/${s.id}/broadcast-settings`, { headers: owner.auth })
      ).json()) as BroadcastSettings;
    const { signedListen } = await settings();
    const signed = new URL(signedListen!.ogg).search;
    expect(await head({}, 'ogg', signed)).toBe(200);
    expect(await head({}, 'mp3', new URL(signedListen!.mp3).search)).toBe(200);
    expect(await head({ Referer: 'https://radio-fan.example/live' }, 'ogg', signed)).toBe(200);
    expect(await head({ Referer: 'https://elsewhere.example/' }, 'ogg', signed)).toBe(403);
    // The owner turns it back on: the plain URL plays anywhere again.
    await fetch(`${api.url}/api/stations/broadcast-settings`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json', Origin: api.url },
      body: JSON.stringify({ stationId: s.id, publicStreamUrl: true }),
    });
    await waitUntil(async () => (await head({})) === 200, 5000, 'public again');
    expect(await head({ Origin: 'https://radio-fan.example' }, 'mp3')).toBe(200);
    await fetch(`${api.url}/api/me/allowed-domains/radio-fan.example`, {
      method: 'DELETE',
      headers: { ...owner.auth, Origin: api.url },
    });
    expect(await head({})).toBe(200);
  }, 30_000);

  it('ends the streams cleanly when the station goes offline', async () => {
    // both streams answer again once the previous test's switches are seen (lookups live a second)
    const status = (ext: string) =>
      fetch(listenUrl(s, ext), { method: 'HEAD' }).then((r) => r.status);
    await waitUntil(
      async () => (await status('ogg')) === 200 && (await status('mp3')) === 200,
      5000,
      'both streams open to requests from no page',
    );
    const res = await fetch(listenUrl(s));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    const mp3 = (await fetch(listenUrl(s, 'mp3'))).body!.getReader();
    await mp3.read();
    expect(await broadcaster!.stop('SIGTERM')).toBe(0);
    // the MP3 response ends too (this read returns at its end), and its encoder is gone
    await readAtLeast(mp3, Infinity);
    expect(await metric('rb_http_mp3_encoders')).toBe('0');
    let last: Uint8Array | undefined;
    const ended = (async () => {
      for (;;) {
        const r = await reader.read();
        if (r.done) return true;
        last = r.value;
      }
    })();
    expect(await ended).toBe(true);
    // the last page carries the end-of-stream flag
    const tail = Buffer.from(last!);
    const at = tail.lastIndexOf('OggS');
    expect(tail[at + 5]! & 0x04).toBe(0x04);
    expect((await current(s.id)).status).toBe('offline');
  }, 30_000);

  it('streams a station published by an Icecast source', async () => {
    const ice = await createRadioStation(api.url, owner, 'Http Ice');
    const port = new URL(api.url).port;
    sources.push(
      icecastSource(`icecast://source:${ice.key}@127.0.0.1:${port}${ice.settings.icecast.mount}`, {
        frequency: 660,
        format: 'ogg',
      }),
    );
    await waitUntil(async () => (await current(ice.id)).status === 'live', 20_000, 'live');
    const pcm = await ffmpegListen(listenUrl(ice), 3);
    const { at, elsewhere } = toneCheck(pcm.subarray(4800), 660);
    expect(at).toBeGreaterThan(0.0005);
    expect(at).toBeGreaterThan(elsewhere * 100);
  }, 60_000);
});
