/** Opus frame sources: a generated tone, an Ogg/Opus file, a WAV file; and a real-time pacer. */
import { readFileSync } from 'node:fs';
import { nowMs } from './clock.js';
import { readOggOpus } from '@radiobroadcaster/audio';
import { FRAME_SAMPLES, OPUS_RATE, OpusEncoder, opusPacketSamples } from '@radiobroadcaster/audio';
import { parseWav, toStereo48k } from './wav.js';

export interface OpusFrame {
  /** One Opus packet. */
  payload: Buffer;
  /** Its duration in 48 kHz samples per channel (960 for 20 ms). */
  samples: number;
}

/** A pull source of Opus packets; `next()` returns null at the end. */
export interface OpusSource {
  readonly description: string;
  next(): OpusFrame | null;
  close(): void;
}

export interface ToneOptions {
  /** Hz, default 440. */
  frequency?: number;
  /** 0..1 of full scale, default 0.5. */
  amplitude?: number;
  /** Stereo (same signal on both channels), default true. */
  stereo?: boolean;
  /** Encoder bitrate, default 128000. */
  bitrate?: number;
  /** Stop after this many frames (default: endless). */
  maxFrames?: number;
}

/** An endless sine tone encoded to 20 ms Opus frames with opusscript (application audio). */
export class ToneSource implements OpusSource {
  readonly description: string;
  private readonly encoder: OpusEncoder;
  private readonly frequency: number;
  private readonly amplitude: number;
  private readonly channels: 1 | 2;
  private readonly maxFrames: number;
  private readonly pcm: Int16Array;
  private phase = 0;
  private frames = 0;
  constructor(opts: ToneOptions = {}) {
    this.frequency = opts.frequency ?? 440;
    this.amplitude = opts.amplitude ?? 0.5;
    this.channels = (opts.stereo ?? true) ? 2 : 1;
    this.maxFrames = opts.maxFrames ?? Infinity;
    if (!(this.frequency > 0 && this.frequency < OPUS_RATE / 2))
      throw new RangeError('tone frequency must be between 0 and 24000 Hz');
    if (!(this.amplitude >= 0 && this.amplitude <= 1))
      throw new RangeError('tone amplitude must be between 0 and 1');
    this.encoder = new OpusEncoder({ channels: this.channels, bitrate: opts.bitrate ?? 128000 });
    this.pcm = new Int16Array(FRAME_SAMPLES * this.channels);
    this.description = `tone ${this.frequency} Hz (${this.channels === 2 ? 'stereo' : 'mono'})`;
  }
  next(): OpusFrame | null {
    if (this.closed || this.frames >= this.maxFrames) return null;
    const w = (2 * Math.PI * this.frequency) / OPUS_RATE;
    const a = this.amplitude * 32767;
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const v = Math.round(a * Math.sin(this.phase));
      for (let c = 0; c < this.channels; c++) this.pcm[i * this.channels + c] = v;
      this.phase += w;
      if (this.phase >= 2 * Math.PI) this.phase -= 2 * Math.PI;
    }
    this.frames++;
    return { payload: this.encoder.encode(this.pcm), samples: FRAME_SAMPLES };
  }
  private closed = false;
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.encoder.delete();
  }
}

/** Opus packets of an Ogg/Opus file (OpusHead and OpusTags skipped), optionally looped. */
export class OggOpusSource implements OpusSource {
  readonly description: string;
  readonly channels: number;
  private readonly packets: Buffer[];
  private index = 0;
  constructor(
    data: Buffer,
    private readonly opts: { loop?: boolean; name?: string } = {},
  ) {
    const file = readOggOpus(data);
    this.packets = file.packets.filter((p) => opusPacketSamples(p) > 0);
    this.channels = file.head.channels;
    if (this.packets.length === 0) throw new RangeError('the Ogg/Opus file has no audio packets');
    this.description = `${opts.name ?? 'Ogg/Opus'} (${this.packets.length} packets, ${file.head.channels} ch)`;
  }
  static fromFile(path: string, opts: { loop?: boolean } = {}): OggOpusSource {
    return new OggOpusSource(readFileSync(path), { ...opts, name: path });
  }
  get packetCount(): number {
    return this.packets.length;
  }
  next(): OpusFrame | null {
    if (this.index >= this.packets.length) {
      if (!this.opts.loop) return null;
      this.index = 0;
    }
    const payload = this.packets[this.index++];
    return { payload, samples: opusPacketSamples(payload) };
  }
  close(): void {}
}

/** A PCM16 WAV file resampled to 48 kHz stereo and encoded to 20 ms Opus frames. */
export class WavSource implements OpusSource {
  readonly description: string;
  private readonly pcm: Int16Array;
  private readonly encoder: OpusEncoder;
  private readonly frame = new Int16Array(FRAME_SAMPLES * 2);
  private offset = 0;
  constructor(
    data: Buffer,
    private readonly opts: { loop?: boolean; name?: string; bitrate?: number } = {},
  ) {
    const wav = parseWav(data);
    this.pcm = toStereo48k(wav);
    if (this.pcm.length === 0) throw new RangeError('the WAV file has no audio');
    this.encoder = new OpusEncoder({ channels: 2, bitrate: opts.bitrate ?? 128000 });
    this.description = `${opts.name ?? 'WAV'} (${wav.sampleRate} Hz, ${wav.channels} ch, ${(wav.frames / wav.sampleRate).toFixed(1)} s)`;
  }
  static fromFile(path: string, opts: { loop?: boolean; bitrate?: number } = {}): WavSource {
    return new WavSource(readFileSync(path), { ...opts, name: path });
  }
  next(): OpusFrame | null {
    if (this.closed) return null;
    const total = this.pcm.length;
    if (this.offset >= total) {
      if (!this.opts.loop) return null;
      this.offset = 0;
    }
    const need = this.frame.length;
    let filled = 0;
    while (filled < need) {
      if (this.offset >= total) {
        if (!this.opts.loop) break;
        this.offset = 0;
      }
      const n = Math.min(need - filled, total - this.offset);
      this.frame.set(this.pcm.subarray(this.offset, this.offset + n), filled);
      filled += n;
      this.offset += n;
    }
    this.frame.fill(0, filled);
    return { payload: this.encoder.encode(this.frame), samples: FRAME_SAMPLES };
  }
  private closed = false;
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.encoder.delete();
  }
}

/** Opens a source from a file by extension (.ogg/.opus/.oga → Ogg/Opus, .wav → WAV). */
export function openFileSource(path: string, opts: { loop?: boolean } = {}): OpusSource {
  const lower = path.toLowerCase();
  if (lower.endsWith('.wav')) return WavSource.fromFile(path, opts);
  if (lower.endsWith('.ogg') || lower.endsWith('.opus') || lower.endsWith('.oga'))
    return OggOpusSource.fromFile(path, opts);
  throw new RangeError(`unsupported file type: ${path} (use .ogg/.opus or .wav)`);
}

export interface PacedFrame extends OpusFrame {
  /** 0-based frame index. */
  index: number;
  /** Sum of the durations of the previous frames, in 48 kHz samples (the RTP timestamp offset). */
  timestamp: number;
  /** When the frame was due, on the `nowMs()` clock. */
  dueAt: number;
}

export interface PaceOptions {
  signal?: AbortSignal;
  /** Stop after this much media time. */
  durationMs?: number;
  /** If the loop falls further behind than this (event-loop stall), restart the schedule from now. */
  maxLagMs?: number;
}

/**
 * Emits the frames of a source in real time. Each frame is scheduled at an absolute time
 * (start + media time so far), so timer lateness never accumulates into drift.
 * Resolves with the number of frames emitted when the source ends, the duration passes or the signal aborts.
 */
export async function paceSource(
  source: OpusSource,
  onFrame: (frame: PacedFrame) => void,
  opts: PaceOptions = {},
): Promise<number> {
  const maxLag = opts.maxLagMs ?? 1000;
  let base = nowMs();
  let mediaSamples = 0; // since `base`
  let timestamp = 0;
  let index = 0;
  while (!opts.signal?.aborted) {
    if (opts.durationMs !== undefined && (timestamp / OPUS_RATE) * 1000 >= opts.durationMs) break;
    const frame = source.next();
    if (!frame) break;
    // Start the clock once the first frame exists (a first encode can be slow).
    if (index === 0) base = nowMs();
    let due = base + (mediaSamples / OPUS_RATE) * 1000;
    let wait = due - nowMs();
    if (wait < -maxLag) {
      base = nowMs();
      mediaSamples = 0;
      due = base;
      wait = 0;
    }
    if (wait > 0) await waitUntil(due, opts.signal);
    if (opts.signal?.aborted) break;
    onFrame({ ...frame, index, timestamp, dueAt: due });
    index++;
    mediaSamples += frame.samples;
    timestamp += frame.samples;
  }
  return index;
}

/** Sleeps until an absolute `nowMs()` time: a timer for the bulk, then short re-checks. */
function waitUntil(at: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const check = () => {
      const left = at - nowMs();
      if (left <= 0.25 || signal?.aborted) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      // setTimeout fires at >= the delay, often ~1 ms late: aim a little early and re-check.
      timer = setTimeout(check, left > 2 ? left - 1 : 0);
    };
    check();
  });
}
