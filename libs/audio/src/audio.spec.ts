import { describe, expect, it } from '@jest/globals';
import { MPEGDecoder } from 'mpg123-decoder';
import { createMp3Encoder } from 'wasm-media-encoders';
import { buildOggPage, OggError, parseOggPages, readOggOpus, writeOggOpus } from './ogg.js';
import { OggOpusDemuxer, OggPageReader, type OggOpusEvent } from './ogg-stream.js';
import { OggOpusWriter } from './ogg-opus-writer.js';
import { FRAME_SAMPLES, OpusDecoder, OpusEncoder, goertzelPower } from './opus.js';
import { Mp3Error, Mp3Frames, Mp3ToOpus, OpusToMp3, mp3FrameLength } from './mp3.js';

/** `seconds` of a stereo sine at 48 kHz as 20 ms Opus packets. */
function tonePackets(frequency: number, seconds: number): Buffer[] {
  const enc = new OpusEncoder({ channels: 2, bitrate: 96_000 });
  const out: Buffer[] = [];
  const pcm = new Int16Array(FRAME_SAMPLES * 2);
  let t = 0;
  for (let f = 0; f < seconds * 50; f++) {
    for (let i = 0; i < FRAME_SAMPLES; i++, t++) {
      const v = Math.round(Math.sin((2 * Math.PI * frequency * t) / 48000) * 12000);
      pcm[2 * i] = v;
      pcm[2 * i + 1] = v;
    }
    out.push(enc.encode(pcm));
  }
  enc.delete();
  return out;
}

/** Left channel of decoded Opus packets, as floats. */
function decodeOpus(packets: Buffer[]): Float64Array {
  const dec = new OpusDecoder(2);
  const out: number[] = [];
  for (const p of packets) {
    const pcm = dec.decode(p);
    for (let i = 0; i < pcm.length; i += 2) out.push(pcm[i] / 32768);
  }
  dec.delete();
  return Float64Array.from(out);
}

/** The tone's power stands well above its neighbours' (the frequency is right, not just "some audio"). */
function expectTone(signal: ArrayLike<number>, frequency: number, rate: number): void {
  const at = goertzelPower(signal, frequency, rate);
  expect(at).toBeGreaterThan(1e-3);
  for (const other of [frequency * 0.7, frequency * 1.3, frequency * 2])
    expect(at).toBeGreaterThan(50 * goertzelPower(signal, other, rate));
}

/** Feeds `data` in chunks of varying size, the way a TCP stream arrives. */
function feed<T>(data: Buffer, push: (b: Buffer) => T[]): T[] {
  const out: T[] = [];
  let pos = 0;
  let size = 1;
  while (pos < data.length) {
    out.push(...push(data.subarray(pos, pos + size)));
    pos += size;
    size = (size * 7 + 3) % 1500 || 1;
  }
  return out;
}

function vorbisBosPage(): Buffer {
  const body = Buffer.concat([Buffer.from('\x01vorbis', 'latin1'), Buffer.alloc(22)]);
  return buildOggPage({
    headerType: 0x02,
    granulePosition: 0n,
    serial: 7,
    sequence: 0,
    segments: [body.length],
    body,
  });
}

describe('OggPageReader', () => {
  it('yields the same pages from arbitrary chunks as from the whole stream', () => {
    const ogg = writeOggOpus(
      tonePackets(440, 1).map((data) => ({ data, samples: 960 })),
      { packetsPerPage: 3 },
    );
    const reader = new OggPageReader();
    const pages = feed(ogg, (b) => reader.push(b));
    const whole = [...parseOggPages(ogg)];
    expect(pages.map((p) => [p.sequence, p.granulePosition, p.body.length])).toEqual(
      whole.map((p) => [p.sequence, p.granulePosition, p.body.length]),
    );
    expect(reader.pending).toBe(0);
  });

  it('refuses bytes that are not Ogg, and pages whose CRC is wrong', () => {
    expect(() =>
      new OggPageReader().push(Buffer.from('ID3\x04 this is an mp3 file, really')),
    ).toThrow(/not an Ogg stream/);
    const ogg = writeOggOpus([{ data: tonePackets(440, 0.02)[0], samples: 960 }]);
    ogg[40] ^= 0xff;
    expect(() => new OggPageReader().push(ogg)).toThrow(/CRC mismatch/);
  });
});

describe('OggOpusDemuxer', () => {
  it('passes Opus packets through byte for byte, with their durations', () => {
    const packets = tonePackets(440, 1);
    const ogg = writeOggOpus(
      packets.map((data) => ({ data, samples: 960 })),
      { packetsPerPage: 4 },
    );
    const demux = new OggOpusDemuxer();
    const events = feed(ogg, (b) => demux.push(b));
    expect(events[0]).toMatchObject({ type: 'head', head: { channels: 2, preSkip: 312 } });
    expect(events[1]).toMatchObject({ type: 'tags', tags: { vendor: 'radio-broadcaster' } });
    const audio = events.filter((e) => e.type === 'packet');
    expect(audio).toHaveLength(packets.length);
    audio.forEach((e, i) => {
      expect(e.data.equals(packets[i])).toBe(true);
      expect(e.samples).toBe(960);
    });
  });

  it('follows chained streams and reads their titles', () => {
    const link = (title: string, serial: number) => {
      const ogg = writeOggOpus(
        tonePackets(440, 0.2).map((data) => ({ data, samples: 960 })),
        { serial },
      );
      // Replace the OpusTags page with one carrying TITLE/ARTIST comments.
      const pages = [...parseOggPages(ogg)];
      const tags = Buffer.concat([
        Buffer.from('OpusTags', 'latin1'),
        u32(3),
        Buffer.from('enc'),
        u32(2),
        u32(6 + title.length),
        Buffer.from(`TITLE=${title}`),
        u32(11),
        Buffer.from('artist=Moby'),
      ]);
      const tagPage = buildOggPage({
        headerType: 0,
        granulePosition: 0n,
        serial,
        sequence: 1,
        segments: [tags.length],
        body: tags,
      });
      return Buffer.concat([
        ogg.subarray(0, pages[1].offset),
        tagPage,
        ogg.subarray(pages[2].offset),
      ]);
    };
    const demux = new OggOpusDemuxer();
    const events: OggOpusEvent[] = demux.push(
      Buffer.concat([link('Porcelain', 1), link('Flower', 2)]),
    );
    const titles = events.flatMap((e) => (e.type === 'tags' ? [e.tags.comments] : []));
    expect(titles).toEqual([
      { TITLE: 'Porcelain', ARTIST: 'Moby' },
      { TITLE: 'Flower', ARTIST: 'Moby' },
    ]);
    expect(events.filter((e) => e.type === 'head')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'packet')).toHaveLength(20);
  });

  it('refuses an Ogg stream that is not Opus, naming its codec', () => {
    const next = buildOggPage({
      headerType: 0,
      granulePosition: 0n,
      serial: 7,
      sequence: 1,
      segments: [3],
      body: Buffer.from('\x03vo', 'latin1'),
    });
    expect(() => new OggOpusDemuxer().push(Buffer.concat([vorbisBosPage(), next]))).toThrow(
      'not an Opus stream: it carries Vorbis',
    );
  });

  it('refuses surround layouts and garbage', () => {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'latin1');
    head[8] = 1;
    head[9] = 6;
    head[18] = 1;
    const page = buildOggPage({
      headerType: 2,
      granulePosition: 0n,
      serial: 1,
      sequence: 0,
      segments: [19],
      body: head,
    });
    expect(() => new OggOpusDemuxer().push(page)).toThrow(/unsupported Opus channel layout/);
    expect(() => new OggOpusDemuxer().push(Buffer.alloc(4096, 0x41))).toThrow(OggError);
  });
});

describe('OggOpusWriter', () => {
  it('gives a reader joining mid-stream header pages that run straight into the shared pages', () => {
    const packets = tonePackets(440, 0.5);
    const w = new OggOpusWriter({ serial: 42 });
    w.setComments({ TITLE: 'Night Owls', ARTIST: null });
    const pages = packets.map((p) => w.page(p, 960));
    // A reader that joins at the 10th packet.
    const joined = Buffer.concat([
      w.headers(pages[10].sequence),
      ...pages.slice(10).map((p) => p.bytes),
      w.end(),
    ]);
    const parsed = [...parseOggPages(joined)];
    expect(parsed.map((p) => p.sequence)).toEqual(
      Array.from({ length: parsed.length }, (_, i) => pages[10].sequence - 2 + i),
    );
    expect(parsed[parsed.length - 1].headerType & 0x04).toBe(4);
    const file = readOggOpus(joined);
    expect(file.packets.map((p) => p.toString('hex'))).toEqual(
      packets.slice(10).map((p) => p.toString('hex')),
    );
    expect(joined.includes(Buffer.from('TITLE=Night Owls'))).toBe(true);
    expectTone(decodeOpus(file.packets), 440, 48000);
  });
});

describe('MP3', () => {
  it('turns a 44.1 kHz MP3 stream into 20 ms Opus packets carrying the same tone', async () => {
    const mp3 = await createMp3Encoder();
    mp3.configure({ sampleRate: 44100, channels: 2, bitrate: 128 });
    const left = new Float32Array(44100 * 2);
    for (let i = 0; i < left.length; i++)
      left[i] = 0.4 * Math.sin((2 * Math.PI * 1000 * i) / 44100);
    const bytes = Buffer.concat([
      Buffer.from(mp3.encode([left, left])),
      Buffer.from(mp3.finalize()),
    ]);
    const t = await Mp3ToOpus.create();
    const packets: Buffer[] = [];
    let pos = 0;
    while (pos < bytes.length) {
      packets.push(...(await t.push(bytes.subarray(pos, pos + 417))));
      pos += 417;
    }
    t.close();
    expect(t.format).toEqual({ sampleRate: 44100, channels: 2 });
    // 2 s at 48 kHz, less what the codecs still hold at the end.
    expect(packets.length).toBeGreaterThan(90);
    expect(packets.length).toBeLessThanOrEqual(104);
    expectTone(decodeOpus(packets).subarray(4800), 1000, 48000);
  });

  it('refuses a stream with no MPEG audio in it', async () => {
    const t = await Mp3ToOpus.create();
    await expect(
      (async () => {
        for (let i = 0; i < 40; i++) await t.push(Buffer.alloc(4096, i));
      })(),
    ).rejects.toThrow(Mp3Error);
    t.close();
  });

  it('encodes a live Opus stream to MP3 that decodes to the same tone', async () => {
    const t = await OpusToMp3.create({ bitrate: 128 });
    const parts = tonePackets(660, 2).map((p) => t.push(p));
    parts.push(t.close());
    const bytes = Buffer.concat(parts);
    expect(bytes.readUInt16BE(0) & 0xffe0).toBe(0xffe0); // an MPEG frame sync first
    const dec = new MPEGDecoder();
    await dec.ready;
    const out = dec.decode(bytes);
    dec.free();
    expect(out.sampleRate).toBe(48000);
    expect(out.samplesDecoded).toBeGreaterThan(48000 * 1.9);
    expectTone(out.channelData[0].subarray(4800), 660, 48000);
  });

  it('cuts the encoder output into whole frames, so a listener can join at any chunk', async () => {
    const t = await OpusToMp3.create({ bitrate: 128 });
    const frames = new Mp3Frames();
    const chunks = tonePackets(440, 1)
      .map((p) => frames.push(t.push(p)))
      .filter((c) => c.length > 0);
    t.close();
    expect(chunks.length).toBeGreaterThan(30);
    for (const c of chunks) {
      let at = 0;
      while (at < c.length) at += mp3FrameLength(c, at) || c.length * 2;
      expect(at).toBe(c.length); // headers all the way, ending on a frame boundary
    }
    // joining late: the chunks from the tenth on decode to the tone
    const dec = new MPEGDecoder();
    await dec.ready;
    const out = dec.decode(Buffer.concat(chunks.slice(10)));
    dec.free();
    expect(out.samplesDecoded).toBeGreaterThan(48000 * 0.5);
    expectTone(out.channelData[0].subarray(2400), 440, 48000);
    // bytes before the first header are skipped
    expect(new Mp3Frames().push(Buffer.concat([Buffer.from([1, 2, 3]), chunks[1]!]))).toEqual(
      chunks[1],
    );
  });
});

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
