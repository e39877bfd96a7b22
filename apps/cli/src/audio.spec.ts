import { describe, it, expect } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OggError,
  parseOggPages,
  readOggOpus,
  writeOggOpus,
  oggCrc32,
} from '@radiobroadcaster/audio';
import { OpusDecoder, goertzelPower, opusPacketSamples } from '@radiobroadcaster/audio';
import { OggOpusSource, ToneSource, WavSource, openFileSource, paceSource } from './sources.js';
import { WavError, parseWav, toStereo48k, writeWav } from './wav.js';

function toneFrames(n: number, frequency = 440) {
  const tone = new ToneSource({ frequency, maxFrames: n });
  const frames = [];
  for (let f = tone.next(); f; f = tone.next()) frames.push(f);
  tone.close();
  return frames;
}

/** Decodes Opus packets and returns the left channel. */
function decodeLeft(packets: Buffer[]): Float64Array {
  const dec = new OpusDecoder(2);
  const out: number[] = [];
  for (const p of packets) {
    const pcm = dec.decode(p);
    for (let i = 0; i < pcm.length; i += 2) out.push(pcm[i] / 32768);
  }
  dec.delete();
  return Float64Array.from(out);
}

describe('Ogg', () => {
  it('computes the Ogg CRC-32 (check value of "123456789")', () => {
    // CRC-32/MPEG-2 without final xor and init 0 ("CRC-32/OGG"? see RFC 3533): known value 0x89a1897f.
    expect(oggCrc32(Buffer.from('123456789'))).toBe(0x89a1897f);
  });

  it('round-trips Opus packets through pages, skipping OpusHead and OpusTags', () => {
    const frames = toneFrames(60);
    const ogg = writeOggOpus(
      frames.map((f) => ({ data: f.payload, samples: f.samples })),
      { channels: 2, packetsPerPage: 7 },
    );
    const pages = [...parseOggPages(ogg)];
    expect(pages[0].headerType & 0x02).toBe(2); // beginning of stream
    expect(pages[pages.length - 1].headerType & 0x04).toBe(4); // end of stream
    expect(pages.length).toBe(2 + Math.ceil(60 / 7));
    expect(pages[pages.length - 1].granulePosition).toBe(312n + 60n * 960n);
    const file = readOggOpus(ogg);
    expect(file.head.channels).toBe(2);
    expect(file.head.preSkip).toBe(312);
    expect(file.packets.length).toBe(60);
    file.packets.forEach((p, i) => expect(p.equals(frames[i].payload)).toBe(true));
  });

  it('reassembles packets that span pages (lacing values of 255)', () => {
    const big = Array.from({ length: 3 }, (_, k) => {
      const b = Buffer.alloc(255 * 300 + 17 * k);
      for (let i = 0; i < b.length; i++) b[i] = (i * 7 + k) & 0xff;
      b[0] = 0xfc; // TOC: CELT 20 ms, one frame
      return b;
    });
    const ogg = writeOggOpus(
      big.map((data) => ({ data, samples: 960 })),
      { packetsPerPage: 1 },
    );
    const file = readOggOpus(ogg);
    expect(file.packets.length).toBe(3);
    file.packets.forEach((p, i) => expect(p.equals(big[i])).toBe(true));
  });

  it('rejects corrupt data', () => {
    const ogg = writeOggOpus(toneFrames(5).map((f) => ({ data: f.payload, samples: f.samples })));
    const bad = Buffer.from(ogg);
    bad[bad.length - 3] ^= 0xff;
    expect(() => readOggOpus(bad)).toThrow(OggError);
    expect(() => readOggOpus(Buffer.from('not an ogg file at all, clearly'))).toThrow(/OggS/);
    expect(() => readOggOpus(ogg.subarray(0, ogg.length - 5))).toThrow(/truncated/);
  });

  it('OggOpusSource plays the packets of a file, and loops when asked', () => {
    const frames = toneFrames(10);
    const dir = mkdtempSync(join(tmpdir(), 'rb-cli-'));
    const path = join(dir, 'tone.ogg');
    writeFileSync(path, writeOggOpus(frames.map((f) => ({ data: f.payload, samples: f.samples }))));
    const src = openFileSource(path);
    const got: Buffer[] = [];
    for (let f = src.next(); f; f = src.next()) {
      expect(f.samples).toBe(960);
      got.push(f.payload);
    }
    expect(got.length).toBe(10);
    const looped = OggOpusSource.fromFile(path, { loop: true });
    for (let i = 0; i < 25; i++)
      expect(looped.next()?.payload.equals(frames[i % 10].payload)).toBe(true);
  });
});

describe('Opus', () => {
  it('reads packet durations from the TOC byte', () => {
    expect(opusPacketSamples(Buffer.from([0xfc]))).toBe(960); // CELT FB 20 ms, 1 frame
    expect(opusPacketSamples(Buffer.from([0xfd]))).toBe(1920); // 2 frames
    expect(opusPacketSamples(Buffer.from([0xe0]))).toBe(120); // CELT 2.5 ms
    expect(opusPacketSamples(Buffer.from([0x18]))).toBe(2880); // SILK 60 ms
    expect(opusPacketSamples(Buffer.from([0x03, 0x03]))).toBe(3 * 480); // code 3, 3 frames of 10 ms
    expect(opusPacketSamples(Buffer.alloc(0))).toBe(0);
  });

  it('tone frames decode back to a signal with energy at the tone frequency', () => {
    const frames = toneFrames(50, 440);
    for (const f of frames) {
      expect(f.samples).toBe(960);
      expect(opusPacketSamples(f.payload)).toBe(960);
    }
    const signal = decodeLeft(frames.map((f) => f.payload)).subarray(48000 / 10); // skip encoder warm-up
    const at = goertzelPower(signal, 440, 48000);
    const off = goertzelPower(signal, 1000, 48000);
    // amplitude 0.5 → expected power (0.5)^2 / 4 = 0.0625
    expect(at).toBeGreaterThan(0.03);
    expect(off).toBeLessThan(at / 1000);
  });

  it('rejects bad tone options', () => {
    expect(() => new ToneSource({ frequency: 0 })).toThrow(RangeError);
    expect(() => new ToneSource({ amplitude: 2 })).toThrow(RangeError);
  });
});

describe('WAV', () => {
  it('parses PCM16 mono at 16 kHz and resamples to 48 kHz stereo', () => {
    const n = 16000;
    const mono = new Int16Array(n);
    for (let i = 0; i < n; i++)
      mono[i] = Math.round(10000 * Math.sin((2 * Math.PI * 1000 * i) / 16000));
    const wav = parseWav(writeWav(mono, 16000, 1));
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16, frames: n });
    expect(Array.from(wav.samples.subarray(0, 50))).toEqual(Array.from(mono.subarray(0, 50)));
    const st = toStereo48k(wav);
    expect(st.length).toBe(48000 * 2);
    const left = Float64Array.from({ length: 48000 }, (_, i) => st[2 * i] / 32768);
    expect(st[2 * 3000]).toBe(st[2 * 3000 + 1]);
    expect(goertzelPower(left, 1000, 48000)).toBeGreaterThan(0.02);
  });

  it('skips unknown chunks and keeps stereo channels apart', () => {
    const stereo = new Int16Array([1, -1, 2, -2, 3, -3]);
    const plain = writeWav(stereo, 48000, 2);
    // Insert a LIST chunk of odd length (padded) before "data".
    const list = Buffer.concat([
      Buffer.from('LIST'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc'),
      Buffer.alloc(1),
    ]);
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    const wav = parseWav(withList);
    expect(Array.from(wav.samples)).toEqual([1, -1, 2, -2, 3, -3]);
    expect(Array.from(toStereo48k(wav))).toEqual([1, -1, 2, -2, 3, -3]);
  });

  it('rejects what it cannot read', () => {
    expect(() => parseWav(Buffer.from('RIFF....WAVX'))).toThrow(WavError);
    const w = writeWav(new Int16Array(4), 44100, 2);
    w.writeUInt16LE(3, 20); // float
    expect(() => parseWav(w)).toThrow(/only PCM/);
    const w8 = writeWav(new Int16Array(4), 44100, 2);
    w8.writeUInt16LE(8, 34);
    expect(() => parseWav(w8)).toThrow(/16-bit/);
  });

  it('WavSource encodes a 44.1 kHz file into 20 ms Opus frames carrying the tone', () => {
    const rate = 44100;
    const pcm = new Int16Array(rate * 2); // 1 s stereo
    for (let i = 0; i < rate; i++) {
      const v = Math.round(12000 * Math.sin((2 * Math.PI * 600 * i) / rate));
      pcm[2 * i] = v;
      pcm[2 * i + 1] = v;
    }
    const src = new WavSource(writeWav(pcm, rate, 2));
    const packets: Buffer[] = [];
    for (let f = src.next(); f; f = src.next()) packets.push(f.payload);
    src.close();
    expect(packets.length).toBe(50);
    const sig = decodeLeft(packets).subarray(4800, 40000);
    expect(goertzelPower(sig, 600, 48000)).toBeGreaterThan(0.01);
    expect(goertzelPower(sig, 2000, 48000)).toBeLessThan(0.0001);
  });
});

describe('paceSource', () => {
  it('emits frames in real time without drift', async () => {
    const tone = new ToneSource({ maxFrames: 25 });
    const times: number[] = [];
    const start = performance.now();
    const n = await paceSource(tone, (f) => {
      times.push(performance.now() - start);
      expect(f.timestamp).toBe(f.index * 960);
    });
    tone.close();
    expect(n).toBe(25);
    // frame k is due at k*20 ms
    // Frames never go early; lateness (timer, busy machine) does not accumulate.
    times.forEach((t, k) => expect(t).toBeGreaterThanOrEqual(k * 20 - 1));
    expect(times[24] - 24 * 20).toBeLessThan(300); // loose: shared CI machines stall
    expect(times[24]).toBeGreaterThanOrEqual(24 * 20 - 1);
  });

  it('stops at the duration and on abort', async () => {
    const tone = new ToneSource();
    expect(await paceSource(tone, () => {}, { durationMs: 100 })).toBe(5);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 70);
    const n = await paceSource(tone, () => {}, { signal: ac.signal });
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(10); // a busy machine fires the abort timer late
    tone.close();
  });
});
