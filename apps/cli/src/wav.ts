/** WAV (RIFF) PCM 16-bit reading and writing, and simple resampling to 48 kHz stereo. */

export class WavError extends Error {
  override name = 'WavError';
}

export interface WavData {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Interleaved samples. */
  samples: Int16Array;
  /** Frames (samples per channel). */
  frames: number;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

export function parseWav(data: Buffer): WavData {
  if (
    data.length < 12 ||
    data.toString('latin1', 0, 4) !== 'RIFF' ||
    data.toString('latin1', 8, 12) !== 'WAVE'
  ) {
    throw new WavError('not a RIFF/WAVE file');
  }
  let pos = 12;
  let fmt:
    { format: number; channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  let pcm: Buffer | undefined;
  while (pos + 8 <= data.length) {
    const id = data.toString('latin1', pos, pos + 4);
    let size = data.readUInt32LE(pos + 4);
    const bodyStart = pos + 8;
    // Streams written live often leave the data size at 0 or 0xffffffff: take what is there.
    if (bodyStart + size > data.length) size = data.length - bodyStart;
    const body = data.subarray(bodyStart, bodyStart + size);
    if (id === 'fmt ') {
      if (body.length < 16) throw new WavError('fmt chunk too short');
      let format = body.readUInt16LE(0);
      if (format === WAVE_FORMAT_EXTENSIBLE && body.length >= 26) format = body.readUInt16LE(24);
      fmt = {
        format,
        channels: body.readUInt16LE(2),
        sampleRate: body.readUInt32LE(4),
        bitsPerSample: body.readUInt16LE(14),
      };
    } else if (id === 'data') {
      pcm = body;
    }
    pos = bodyStart + size + (size & 1);
  }
  if (!fmt) throw new WavError('fmt chunk missing');
  if (!pcm) throw new WavError('data chunk missing');
  if (fmt.format !== WAVE_FORMAT_PCM)
    throw new WavError(`unsupported WAV format ${fmt.format} (only PCM)`);
  if (fmt.bitsPerSample !== 16)
    throw new WavError(`unsupported ${fmt.bitsPerSample}-bit WAV (only 16-bit PCM)`);
  if (fmt.channels < 1) throw new WavError('WAV has no channels');
  if (fmt.sampleRate < 1000 || fmt.sampleRate > 384000)
    throw new WavError(`unsupported sample rate ${fmt.sampleRate}`);
  const frames = Math.floor(pcm.length / (2 * fmt.channels));
  const samples = new Int16Array(frames * fmt.channels);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
  return { sampleRate: fmt.sampleRate, channels: fmt.channels, bitsPerSample: 16, samples, frames };
}

/** Builds a PCM16 WAV file from interleaved samples. */
export function writeWav(samples: Int16Array, sampleRate: number, channels: number): Buffer {
  const dataLen = samples.length * 2;
  const b = Buffer.alloc(44 + dataLen);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + dataLen, 4);
  b.write('WAVE', 8, 'latin1');
  b.write('fmt ', 12, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * channels * 2, 28);
  b.writeUInt16LE(channels * 2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(dataLen, 40);
  for (let i = 0; i < samples.length; i++) b.writeInt16LE(samples[i], 44 + i * 2);
  return b;
}

/**
 * Converts interleaved PCM16 at any rate and channel count to 48 kHz interleaved stereo
 * (mono is duplicated, channels beyond two are dropped; linear interpolation).
 */
export function toStereo48k(wav: Pick<WavData, 'samples' | 'sampleRate' | 'channels'>): Int16Array {
  const { samples, sampleRate, channels } = wav;
  const inFrames = Math.floor(samples.length / channels);
  const left = (i: number) => samples[i * channels];
  const right = (i: number) => samples[i * channels + (channels > 1 ? 1 : 0)];
  if (sampleRate === 48000) {
    const out = new Int16Array(inFrames * 2);
    for (let i = 0; i < inFrames; i++) {
      out[2 * i] = left(i);
      out[2 * i + 1] = right(i);
    }
    return out;
  }
  const outFrames = Math.floor((inFrames * 48000) / sampleRate);
  const out = new Int16Array(outFrames * 2);
  const step = sampleRate / 48000;
  for (let o = 0; o < outFrames; o++) {
    const x = o * step;
    const i = Math.floor(x);
    const f = x - i;
    const j = Math.min(i + 1, inFrames - 1);
    out[2 * o] = Math.round(left(i) * (1 - f) + left(j) * f);
    out[2 * o + 1] = Math.round(right(i) * (1 - f) + right(j) * f);
  }
  return out;
}
