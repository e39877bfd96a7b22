/** Opus helpers: packet durations from the TOC byte (RFC 6716 §3.1) and an opusscript wrapper. */
import OpusScript from 'opusscript';

export const OPUS_RATE = 48000;
/** Samples per channel in a 20 ms frame at 48 kHz. */
export const FRAME_SAMPLES = 960;

/** Samples per frame (at 48 kHz) for a TOC config number. */
function frameSamplesForConfig(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config & 3]; // SILK: 10/20/40/60 ms
  if (config < 16) return [480, 960][config & 1]; // Hybrid: 10/20 ms
  return [120, 240, 480, 960][config & 3]; // CELT: 2.5/5/10/20 ms
}

/** Duration of an Opus packet in 48 kHz samples (per channel); 0 for an empty or malformed packet. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length < 1) return 0;
  const toc = packet[0];
  const perFrame = frameSamplesForConfig(toc >> 3);
  const code = toc & 3;
  let count: number;
  if (code === 0) count = 1;
  else if (code === 3) {
    if (packet.length < 2) return 0;
    count = packet[1] & 0x3f;
  } else count = 2;
  return perFrame * count;
}

export interface OpusEncoderOptions {
  channels?: 1 | 2;
  bitrate?: number;
  /** libopus complexity 0–10 (default libopus' 10). */
  complexity?: number;
  /**
   * In-band FEC (what `useinbandfec=1` asks of a sender): each packet also carries a low-bitrate copy
   * of the previous frame, so a receiver recovers one lost packet from the next. Default on, tuned for
   * this expected loss in percent (default 5). libopus only adds it in its SILK and hybrid modes
   * (speech-like bitrates); at music bitrates it codes CELT and the NACK path recovers losses.
   */
  fec?: boolean;
  expectedLossPercent?: number;
}

/** Encoder requests from opus_defines.h. */
const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_INBAND_FEC = 4012;
const OPUS_SET_PACKET_LOSS_PERC = 4014;

/**
 * opusscript encoder at 48 kHz, application "audio". Input is interleaved PCM16 as a Buffer of
 * exactly `frameSamples * channels * 2` bytes (opusscript copies its input as bytes: pass a Buffer,
 * never an Int16Array, which corrupts its heap).
 */
export class OpusEncoder {
  private readonly enc: OpusScript;
  readonly channels: 1 | 2;
  constructor(opts: OpusEncoderOptions = {}) {
    this.channels = opts.channels ?? 2;
    this.enc = new OpusScript(OPUS_RATE, this.channels, OpusScript.Application.AUDIO);
    this.enc.setBitrate(opts.bitrate ?? 128000);
    if (opts.complexity !== undefined) this.enc.encoderCTL(OPUS_SET_COMPLEXITY, opts.complexity);
    if (opts.fec ?? true) {
      this.enc.encoderCTL(OPUS_SET_INBAND_FEC, 1);
      this.enc.encoderCTL(OPUS_SET_PACKET_LOSS_PERC, opts.expectedLossPercent ?? 5);
    }
  }
  encode(pcm: Int16Array, frameSamples = FRAME_SAMPLES): Buffer {
    if (pcm.length !== frameSamples * this.channels) {
      throw new RangeError(`expected ${frameSamples * this.channels} samples, got ${pcm.length}`);
    }
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    return this.enc.encode(bytes, frameSamples);
  }
  delete(): void {
    this.enc.delete();
  }
}

/** opusscript decoder at 48 kHz: Opus packet → interleaved PCM16. */
export class OpusDecoder {
  private readonly dec: OpusScript;
  constructor(readonly channels: 1 | 2 = 2) {
    this.dec = new OpusScript(OPUS_RATE, channels, OpusScript.Application.AUDIO);
  }
  decode(packet: Buffer): Int16Array {
    const out = this.dec.decode(packet);
    const copy = new Int16Array(out.length / 2);
    for (let i = 0; i < copy.length; i++) copy[i] = out.readInt16LE(i * 2);
    return copy;
  }
  delete(): void {
    this.dec.delete();
  }
}

/** Goertzel power of `frequency` in a mono signal, normalized by length (for tone checks). */
export function goertzelPower(
  signal: ArrayLike<number>,
  frequency: number,
  sampleRate: number,
): number {
  const w = (2 * Math.PI * frequency) / sampleRate;
  const coeff = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < signal.length; i++) {
    const s0 = signal[i] + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return power / (signal.length * signal.length);
}
