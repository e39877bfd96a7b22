/**
 * Helpers for the radio-compatibility tests: ffmpeg as an Icecast source and as an HTTP listener,
 * raw source requests, and tone checks on what a listener heard.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goertzelPower, OggOpusDemuxer, OpusDecoder } from '@radiobroadcaster/audio';
import type { BroadcastSettings, CreateStationResponse } from '@radiobroadcaster/contracts';
import {
  createTestDatabase,
  signUp,
  spawnApiProcess,
  type TestUser,
} from '../../apps/api/testing/test-app.js';

/**
 * The process `npm start` runs, on a scratch PostgreSQL database without Redis, with a short
 * publisher grace period and publish limits out of the way, and one signed-up owner. `stop()` ends
 * the process and drops the database.
 */
export async function startRadioApi(env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const api = await spawnApiProcess({
    DATABASE_URL: db.url,
    REDIS_URL: '',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-radio-')),
    AUTH_SECRET: randomBytes(32).toString('hex'),
    PUBLISHER_GRACE_MS: '1500',
    RATE_LIMIT_PUBLISH_PER_MINUTE: '1000',
    ...env,
  });
  const owner = await signUp(api.url);
  return {
    api,
    owner,
    stop: async () => {
      await api.stop();
      await db.drop();
    },
  };
}

export interface RadioStation {
  id: string;
  slug: string;
  settings: BroadcastSettings;
  key: string;
}

/** A station of `owner` and its broadcast settings (stream key, mount, listen URLs). */
export async function createRadioStation(
  baseUrl: string,
  owner: TestUser,
  name: string,
): Promise<RadioStation> {
  const res = await fetch(`${baseUrl}/api/stations`, {
    method: 'POST',
    headers: { ...owner.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const { station } = (await res.json()) as CreateStationResponse;
  const settings = (await (
    await fetch(`${baseUrl}/api/stations/${station.id}/broadcast-settings`, { headers: owner.auth })
  ).json()) as BroadcastSettings;
  return { id: station.id, slug: station.slug, settings, key: settings.streamKey! };
}

export interface FfmpegRun {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
  stop: () => Promise<number | null>;
}

export function ffmpeg(args: string[]): FfmpegRun {
  const child = spawn('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'warning', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
}

/** ffmpeg sending a sine as an Icecast source to `url` (icecast://source:KEY@host:port/ingest/u/s). */
export function icecastSource(
  url: string,
  opts: { frequency: number; format: 'ogg' | 'mp3'; seconds?: number; legacy?: boolean },
): FfmpegRun {
  const codec =
    opts.format === 'ogg'
      ? ['-c:a', 'libopus', '-b:a', '96k', '-page_duration', '20000', '-f', 'ogg']
      : ['-c:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3'];
  return ffmpeg([
    '-re',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${opts.frequency}:sample_rate=48000`,
    '-t',
    String(opts.seconds ?? 60),
    '-ac',
    '2',
    ...codec,
    ...(opts.legacy ? ['-legacy_icecast', '1'] : []),
    url,
  ]);
}

/** ffmpeg reading an HTTP stream for `seconds` and writing mono 48 kHz PCM (s16le) to stdout. */
export async function ffmpegListen(url: string, seconds: number): Promise<Int16Array> {
  const child = spawn(
    'ffmpeg',
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', url, '-t', String(seconds)].concat([
      '-ac',
      '1',
      '-ar',
      '48000',
      '-f',
      's16le',
      'pipe:1',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const pcm = Buffer.concat(chunks);
  if (pcm.length === 0) throw new Error(`ffmpeg heard nothing (exit ${code}): ${err}`);
  return new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
}

/** Goertzel power at `frequency` and the strongest of some other frequencies, for a tone check. */
export function toneCheck(
  mono: ArrayLike<number>,
  frequency: number,
): { at: number; elsewhere: number } {
  const signal = Float64Array.from(mono as ArrayLike<number>, (v) => v / 32768);
  const others = [220, 330, 550, 660, 880, 1000, 1500].filter((f) => Math.abs(f - frequency) > 50);
  return {
    at: windowedPower(signal, frequency),
    elsewhere: Math.max(...others.map((f) => windowedPower(signal, f))),
  };
}

/**
 * The mean of a frequency's power over 200 ms windows. Over the whole signal one Goertzel sum is
 * coherent: a packet lost on the way (and concealed by the decoder) shifts the tone's phase, and the
 * parts before and after cancel out. Per window, the tone counts wherever it is heard.
 */
function windowedPower(signal: Float64Array, frequency: number): number {
  const size = 48000 / 5;
  const windows = Math.floor(signal.length / size);
  if (windows === 0) return goertzelPower(signal, frequency, 48000);
  let sum = 0;
  for (let w = 0; w < windows; w++) {
    sum += goertzelPower(signal.subarray(w * size, (w + 1) * size), frequency, 48000);
  }
  return sum / windows;
}

/** Decodes Opus packets (as a WebRTC listener got them) into mono PCM16 (left channel). */
export function decodeOpusMono(packets: Buffer[]): Int16Array {
  const dec = new OpusDecoder(2);
  const out: number[] = [];
  try {
    for (const p of packets) {
      const pcm = dec.decode(p);
      for (let i = 0; i < pcm.length; i += 2) out.push(pcm[i]!);
    }
  } finally {
    dec.delete();
  }
  return Int16Array.from(out);
}

export interface RawReply {
  status: number;
  head: string;
  body: string;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  write: (b: Buffer) => boolean;
  destroy: () => void;
}

/** Opens a source request by hand (`SOURCE`/`PUT`), optionally sending `body` after the head. */
export function rawSource(
  port: number,
  opts: {
    method?: 'SOURCE' | 'PUT';
    path: string;
    auth?: string;
    contentType?: string;
    body?: Buffer;
    /** Another loopback address to connect from (another client IP, e.g. 127.0.0.2). */
    localAddress?: string;
  },
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: opts.localAddress });
    let buf = '';
    let done = false;
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      const headers = [
        `${opts.method ?? 'PUT'} ${opts.path} HTTP/1.1`,
        'Host: 127.0.0.1',
        ...(opts.auth ? [`Authorization: Basic ${Buffer.from(opts.auth).toString('base64')}`] : []),
        ...(opts.contentType ? [`Content-Type: ${opts.contentType}`] : []),
        '',
        '',
      ].join('\r\n');
      socket.write(headers);
      if (opts.body) socket.write(opts.body);
    });
    const settle = () => {
      if (done) return;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.slice(0, end);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      // a final answer: wait for its body (the server closes the connection after it)
      if (status !== 200 && !socket.destroyed && socket.readyState !== 'closed') return;
      done = true;
      resolve({
        status,
        head,
        body: buf.slice(end + 4),
        closed,
        write: (b) => socket.write(b),
        destroy: () => socket.destroy(),
      });
    };
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      settle();
    });
    socket.on('close', () => {
      settle();
      if (!done) reject(new Error(`connection closed without an answer: ${buf}`));
    });
  });
}

/**
 * A WebRTC (WHEP) listener of the CLI for `ms`: the Opus payloads it received, in order. A join
 * that does not connect is tried once more (a loaded CI machine can miss the 15 s connect window).
 */
export async function listenWebRtc(
  baseUrl: string,
  stationId: string,
  ms: number,
): Promise<Buffer[]> {
  const { ApiClient, WhepListener } = await import('../../apps/cli/src/index.js');
  for (let attempt = 1; ; attempt++) {
    const packets: Buffer[] = [];
    const listener = new WhepListener({
      api: new ApiClient(baseUrl),
      stationId,
      record: (p) => packets.push(Buffer.from(p.payload)),
    });
    try {
      await listener.start();
    } catch (err) {
      await listener.stop().catch(() => undefined);
      if (attempt >= 2) throw err;
      continue;
    }
    await new Promise((r) => setTimeout(r, ms));
    await listener.stop();
    return packets;
  }
}

export interface OggListener {
  status: number;
  /** Seconds of audio received so far (the Opus packets' durations). */
  seconds: () => number;
  /** Resolves when the stream ended (the server closed it, or `stop`). */
  ended: Promise<void>;
  stop: () => void;
}

/** An HTTP listener of a `/listen/….ogg` stream, counting the audio it receives as it arrives. */
export async function oggListener(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers });
  const demuxer = new OggOpusDemuxer();
  let samples = 0;
  const ended = (async () => {
    if (!res.ok || !res.body) return void (await res.text().catch(() => ''));
    const reader = res.body.getReader();
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        for (const ev of demuxer.push(Buffer.from(r.value)))
          if (ev.type === 'packet') samples += ev.samples;
      }
    } catch {
      // stopped
    }
  })();
  return {
    status: res.status,
    seconds: () => samples / 48000,
    ended,
    stop: () => abort.abort(),
  } satisfies OggListener;
}
