/**
 * MP3 in and out with WASM codecs: MP3 sources (what BUTT and Mixxx send by default) become 20 ms
 * Opus packets (mpg123 → libsamplerate → libopus), and a live Opus stream becomes MP3 for players
 * and servers that only take MP3 (libopus → LAME).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import libsamplerate from '@alexanderolsen/libsamplerate-js';
import { MPEGDecoder } from 'mpg123-decoder';
import { createMp3Encoder } from 'wasm-media-encoders';
import { FRAME_SAMPLES, OPUS_RATE, OpusDecoder, OpusEncoder } from './opus.js';

type Resampler = Awaited<ReturnType<typeof libsamplerate.create>>;

export class Mp3Error extends Error {
  override name = 'Mp3Error';
}

/** With no audio decoded after this many bytes, the input is not MP3. */
const MAX_BYTES_WITHOUT_AUDIO = 64 * 1024;

/** mpg123 prints every decoding error with console.error; callers get them as counts instead. */
function quietly<T>(fn: () => T): T {
  const original = console.error;
  console.error = () => {};
  try {
    return fn();
  } finally {
    console.error = original;
  }
}

export interface Mp3ToOpusOptions {
  /** Opus bitrate in bit/s (default 128000). */
  bitrate?: number;
  /** libopus complexity 0–10 (default 8). */
  complexity?: number;
}

/** Streaming MP3 → Opus: push bytes as they arrive, get 20 ms stereo Opus packets. */
export class Mp3ToOpus {
  private readonly decoder = new MPEGDecoder();
  private readonly encoder: OpusEncoder;
  private resampler: Resampler | null = null;
  private inputRate = 0;
  /** Interleaved stereo float samples at 48 kHz waiting for a full frame. */
  private pending = new Float32Array(FRAME_SAMPLES * 2 * 4);
  private pendingLength = 0;
  private bytesSinceAudio = 0;
  /** Decoding errors so far (bad frames are skipped). */
  errors = 0;
  /** Sample rate and channels of the MP3 stream, once known. */
  format: { sampleRate: number; channels: number } | null = null;

  private constructor(opts: Mp3ToOpusOptions) {
    this.encoder = new OpusEncoder({
      channels: 2,
      bitrate: opts.bitrate ?? 128_000,
      complexity: opts.complexity ?? 8,
    });
  }

  static async create(opts: Mp3ToOpusOptions = {}): Promise<Mp3ToOpus> {
    const t = new Mp3ToOpus(opts);
    await t.decoder.ready;
    return t;
  }

  /** Opus packets (960 samples each) completed by `chunk`; throws {@link Mp3Error} on non-MP3 input. */
  async push(chunk: Uint8Array): Promise<Buffer[]> {
    const decoded = quietly(() => this.decoder.decode(chunk));
    this.errors += decoded.errors.length;
    if (decoded.samplesDecoded === 0) {
      this.bytesSinceAudio += chunk.length;
      if (this.bytesSinceAudio > MAX_BYTES_WITHOUT_AUDIO) {
        throw new Mp3Error(
          this.format
            ? `no decodable MP3 audio in the last ${this.bytesSinceAudio} bytes`
            : 'not an MP3 stream: no MPEG audio frame found',
        );
      }
      return [];
    }
    this.bytesSinceAudio = 0;
    const { channelData, samplesDecoded, sampleRate } = decoded;
    this.format = { sampleRate, channels: channelData.length };
    const left = channelData[0];
    const right = channelData[1] ?? left;
    let stereo: Float32Array = new Float32Array(samplesDecoded * 2);
    for (let i = 0; i < samplesDecoded; i++) {
      stereo[2 * i] = left[i];
      stereo[2 * i + 1] = right[i];
    }
    if (sampleRate !== OPUS_RATE) {
      if (sampleRate !== this.inputRate) {
        this.resampler?.destroy();
        this.resampler = await libsamplerate.create(2, sampleRate, OPUS_RATE, {
          converterType: libsamplerate.ConverterType.SRC_SINC_FASTEST,
        });
        this.inputRate = sampleRate;
      }
      stereo = this.resampler!.full(stereo);
    }
    return this.encodeFrames(stereo);
  }

  private encodeFrames(samples: Float32Array): Buffer[] {
    const needed = this.pendingLength + samples.length;
    if (needed > this.pending.length) {
      const grown = new Float32Array(Math.max(needed, this.pending.length * 2));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    this.pending.set(samples, this.pendingLength);
    this.pendingLength = needed;
    const frame = FRAME_SAMPLES * 2;
    const out: Buffer[] = [];
    let pos = 0;
    const pcm = new Int16Array(frame);
    while (this.pendingLength - pos >= frame) {
      for (let i = 0; i < frame; i++) {
        const s = this.pending[pos + i];
        pcm[i] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32767);
      }
      out.push(this.encoder.encode(pcm));
      pos += frame;
    }
    this.pending.copyWithin(0, pos, this.pendingLength);
    this.pendingLength -= pos;
    return out;
  }

  close(): void {
    this.decoder.free();
    this.resampler?.destroy();
    this.encoder.delete();
  }
}

export interface OpusToMp3Options {
  /** Constant MP3 bitrate in kbit/s (default 128). */
  bitrate?: 64 | 96 | 128 | 160 | 192 | 256 | 320;
}

/** Streaming Opus → MP3 (48 kHz stereo CBR): push packets, get MP3 bytes as frames complete. */
export class OpusToMp3 {
  private readonly decoder = new OpusDecoder(2);
  private readonly left = new Float32Array(5760);
  private readonly right = new Float32Array(5760);

  private constructor(private readonly encoder: Awaited<ReturnType<typeof createMp3Encoder>>) {}

  static async create(opts: OpusToMp3Options = {}): Promise<OpusToMp3> {
    const encoder = await createMp3Encoder();
    encoder.configure({ sampleRate: OPUS_RATE, channels: 2, bitrate: opts.bitrate ?? 128 });
    return new OpusToMp3(encoder);
  }

  /** MP3 bytes completed by this packet (often none: LAME works in 1152-sample frames). */
  push(packet: Buffer): Buffer {
    const pcm = this.decoder.decode(packet);
    const n = pcm.length / 2;
    for (let i = 0; i < n; i++) {
      this.left[i] = pcm[2 * i] / 32768;
      this.right[i] = pcm[2 * i + 1] / 32768;
    }
    // The encoder's output view is reused by its next call: copy it out.
    return Buffer.from(this.encoder.encode([this.left.subarray(0, n), this.right.subarray(0, n)]));
  }

  close(): Buffer {
    const tail = Buffer.from(this.encoder.finalize());
    this.decoder.delete();
    return tail;
  }
}

/**
 * {@link Mp3ToOpus} in a worker thread of its own: a live MP3 source's codec work (~5–10 % of a
 * core) never holds up the thread that serves requests and WebRTC.
 */
export class Mp3ToOpusWorker {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (p: Buffer[]) => void; reject: (e: Error) => void }
  >();
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: { id: number; packets?: Uint8Array[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Mp3Error(m.error));
      else p.resolve((m.packets ?? []).map((u) => Buffer.from(u.buffer, u.byteOffset, u.length)));
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the MP3 decoder stopped')));
  }

  static async create(opts: Mp3ToOpusOptions = {}): Promise<Mp3ToOpusWorker> {
    const url = [
      new URL('./mp3-worker.js', import.meta.url),
      new URL('../dist/mp3-worker.js', import.meta.url),
    ].find((u) => u.protocol === 'file:' && existsSync(fileURLToPath(u)));
    if (!url) throw new Error('compiled mp3-worker.js not found (run `tsc -b libs/audio`)');
    const worker = new Worker(url, { workerData: opts, name: 'mp3-to-opus' });
    await new Promise<void>((resolve, reject) => {
      worker.once('online', () => resolve());
      worker.once('error', reject);
    });
    return new Mp3ToOpusWorker(worker);
  }

  /** As {@link Mp3ToOpus.push}, answered by the worker; pushes are handled in order. */
  push(chunk: Uint8Array): Promise<Buffer[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, chunk });
    });
  }

  close(): void {
    this.failure ??= new Error('closed');
    void this.worker.terminate();
  }
}

const MPEG1_L3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_L3_KBPS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MPEG1_RATES = [44100, 48000, 32000];

/** Length in bytes of the MPEG Layer III frame whose header starts at `at`, or 0 when there is none. */
export function mp3FrameLength(b: Uint8Array, at: number): number {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[at + 1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = (b[at + 1]! >> 1) & 3; // 1: Layer III
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3)
    return 0;
  const padding = (b[at + 2]! >> 1) & 1;
  const mpeg1 = version === 3;
  const rate = MPEG1_RATES[rateIndex]! / (mpeg1 ? 1 : version === 2 ? 2 : 4);
  const kbps = (mpeg1 ? MPEG1_L3_KBPS : MPEG2_L3_KBPS)[bitrateIndex]!;
  return Math.floor(((mpeg1 ? 144 : 72) * kbps * 1000) / rate) + padding;
}

/**
 * Cuts an MP3 byte stream into whole frames: an encoder's output ends anywhere, but a listener
 * joining a live stream must start at a frame header.
 */
export class Mp3Frames {
  private pending: Buffer = Buffer.alloc(0);

  /** The whole frames completed by `bytes` (empty when none); bytes before a frame header are skipped. */
  push(bytes: Buffer): Buffer {
    let b: Buffer = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    let start = 0;
    while (start + 4 <= b.length && mp3FrameLength(b, start) === 0) start++;
    let end = start;
    for (let n = mp3FrameLength(b, end); n > 0 && end + n <= b.length; n = mp3FrameLength(b, end))
      end += n;
    this.pending = b.subarray(end);
    b = b.subarray(start, end);
    return b;
  }
}
