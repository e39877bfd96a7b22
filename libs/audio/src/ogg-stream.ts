/**
 * Incremental Ogg reading for live sources (Icecast `SOURCE`/`PUT` bodies): bytes arrive in
 * arbitrary chunks, pages and packets come out as soon as they are complete, and anything that
 * is not a well-formed Ogg/Opus stream is refused with a reason a source's operator can act on.
 */
import { OggError, type OggPage, parseOpusHead, readOggPage, type OpusHead } from './ogg.js';
import { opusPacketSamples } from './opus.js';

const EMPTY = Buffer.alloc(0);
/** A page is at most 27 + 255 + 255 × 255 bytes. */
const MAX_PAGE_BYTES = 27 + 255 + 255 * 255;
/** Largest Opus packet we forward (120 ms of 510 kbit/s stereo is ~7.7 KB). */
const MAX_OPUS_PACKET_BYTES = 16 * 1024;

/** Splits a byte stream into Ogg pages, checking every capture pattern and CRC. */
export class OggPageReader {
  private buf: Buffer = EMPTY;
  private offset = 0;

  /** Pages completed by `chunk` (possibly none); throws {@link OggError} on anything that is not Ogg. */
  push(chunk: Buffer): OggPage[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const pages: OggPage[] = [];
    let pos = 0;
    for (;;) {
      const read = readOggPage(this.buf, pos, { offset: this.offset });
      if (!read) break;
      // the page outlives this chunk's buffer: its own copy
      pages.push({ ...read.page, body: Buffer.from(read.page.body) });
      pos += read.length;
    }
    if (this.buf.length - pos > MAX_PAGE_BYTES) throw new OggError('Ogg page larger than allowed');
    this.offset += pos;
    this.buf = pos === this.buf.length ? EMPTY : this.buf.subarray(pos);
    return pages;
  }

  /** Bytes received but not yet part of a complete page. */
  get pending(): number {
    return this.buf.length;
  }
}

/** Vorbis-comment metadata of an Opus stream (TITLE, ARTIST, ALBUM, ...), keys upper-cased. */
export interface OpusTags {
  vendor: string;
  comments: Record<string, string>;
}

/** Parses an OpusTags packet; malformed comment lists are cut where they break. */
export function parseOpusTags(packet: Buffer): OpusTags {
  if (packet.length < 16 || packet.toString('latin1', 0, 8) !== 'OpusTags')
    throw new OggError('not an OpusTags packet');
  let pos = 8;
  const vendorLen = packet.readUInt32LE(pos);
  pos += 4;
  if (pos + vendorLen > packet.length) throw new OggError('OpusTags vendor string truncated');
  const vendor = packet.toString('utf8', pos, pos + vendorLen);
  pos += vendorLen;
  const comments: Record<string, string> = {};
  if (pos + 4 > packet.length) return { vendor, comments };
  const count = packet.readUInt32LE(pos);
  pos += 4;
  for (let i = 0; i < count && pos + 4 <= packet.length; i++) {
    const len = packet.readUInt32LE(pos);
    pos += 4;
    if (pos + len > packet.length) break;
    const text = packet.toString('utf8', pos, pos + len);
    pos += len;
    const eq = text.indexOf('=');
    if (eq > 0) comments[text.slice(0, eq).toUpperCase()] = text.slice(eq + 1);
  }
  return { vendor, comments };
}

export type OggOpusEvent =
  /** A new Opus stream began (the first one, or the next link of a chained stream). */
  | { type: 'head'; head: OpusHead; serial: number }
  | { type: 'tags'; tags: OpusTags }
  /** One Opus packet and its duration in 48 kHz samples. */
  | { type: 'packet'; data: Buffer; samples: number };

/** What a first page that is not Opus most likely carries, for the refusal message. */
function describeCodec(packet: Buffer): string {
  const s = packet.toString('latin1', 0, 8);
  if (s.startsWith('\x01vorbis')) return 'Vorbis';
  if (s.startsWith('\x7fFLAC')) return 'FLAC';
  if (s.startsWith('Speex')) return 'Speex';
  if (s.startsWith('\x80theora')) return 'Theora';
  return 'an unknown codec';
}

/**
 * Ogg/Opus demuxer for a live source: validates OpusHead and OpusTags, reassembles packets (lacing,
 * packets spanning pages) of the Opus stream, follows chained streams (a new link per track, as
 * liquidsoap and ffmpeg send metadata changes), and ignores other multiplexed streams.
 */
export class OggOpusDemuxer {
  private readonly reader = new OggPageReader();
  private serial: number | null = null;
  private state: 'head' | 'tags' | 'audio' | 'between' = 'head';
  private parts: Buffer[] = [];
  /** Other codecs' BOS pages seen before the Opus one (grouped streams). */
  private otherBos = 0;
  private firstOther: string | undefined;
  /** The current stream's OpusHead. */
  head: OpusHead | null = null;

  push(chunk: Buffer): OggOpusEvent[] {
    const events: OggOpusEvent[] = [];
    for (const page of this.reader.push(chunk)) this.page(page, events);
    return events;
  }

  private page(page: OggPage, events: OggOpusEvent[]): void {
    const bos = (page.headerType & 0x02) !== 0;
    if (this.state === 'head' || this.state === 'between') {
      if (!bos) {
        if (this.state === 'between') return; // pages of other streams between two links
        if (this.firstOther)
          throw new OggError(`not an Opus stream: it carries ${this.firstOther}`);
        throw new OggError(
          'not an Ogg stream start: the first page has no beginning-of-stream flag',
        );
      }
      const first = packetsOf(page)[0] ?? EMPTY;
      if (first.length < 8 || first.toString('latin1', 0, 8) !== 'OpusHead') {
        // Grouped streams: another codec's BOS page may come first; a later BOS may be Opus.
        if (this.serial === null && this.state === 'head' && this.otherBos < 8) {
          this.otherBos++;
          this.firstOther ??= describeCodec(first);
          return;
        }
        throw new OggError(
          `not an Opus stream: it carries ${this.firstOther ?? describeCodec(first)}`,
        );
      }
      const head = parseOpusHead(first);
      if (head.version >> 4 !== 0)
        throw new OggError(`unsupported OpusHead version ${head.version}`);
      if (head.mappingFamily !== 0 || head.channels < 1 || head.channels > 2)
        throw new OggError(
          `unsupported Opus channel layout (${head.channels} channels, family ${head.mappingFamily}): send mono or stereo`,
        );
      this.serial = page.serial;
      this.head = head;
      this.state = 'tags';
      this.parts = [];
      events.push({ type: 'head', head, serial: page.serial });
      return;
    }
    if (page.serial !== this.serial) {
      if (bos && this.state === 'audio') {
        // A new link without the previous one's end-of-stream flag (a source restarted its muxer).
        this.state = 'between';
        this.page(page, events);
      }
      return;
    }
    if (!(page.headerType & 0x01)) this.parts = [];
    let dropFirst = (page.headerType & 0x01) !== 0 && this.parts.length === 0;
    let start = 0;
    let offset = 0;
    for (const lace of page.segments) {
      offset += lace;
      if (lace === 255) continue;
      this.parts.push(page.body.subarray(start, offset));
      const packet = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
      this.parts = [];
      start = offset;
      if (dropFirst) {
        dropFirst = false;
        continue;
      }
      this.packet(packet, events);
    }
    if (start < offset) {
      this.parts.push(page.body.subarray(start, offset));
      if (this.parts.reduce((n, p) => n + p.length, 0) > MAX_OPUS_PACKET_BYTES)
        throw new OggError('Opus packet larger than allowed');
    }
    if (page.headerType & 0x04) {
      this.state = 'between';
      this.serial = null;
      this.parts = [];
    }
  }

  private packet(packet: Buffer, events: OggOpusEvent[]): void {
    if (this.state === 'tags') {
      if (packet.length < 8 || packet.toString('latin1', 0, 8) !== 'OpusTags')
        throw new OggError('Opus stream without an OpusTags packet');
      this.state = 'audio';
      events.push({ type: 'tags', tags: parseOpusTags(packet) });
      return;
    }
    if (packet.length === 0) return; // a zero-length packet is a legal "lost packet" marker
    if (packet.length > MAX_OPUS_PACKET_BYTES)
      throw new OggError('Opus packet larger than allowed');
    const samples = opusPacketSamples(packet);
    if (samples <= 0 || samples > 5760) throw new OggError('malformed Opus packet');
    events.push({ type: 'packet', data: packet, samples });
  }
}

/** The packets that start and end on this page (enough for BOS pages, which hold one packet). */
function packetsOf(page: OggPage): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  let offset = 0;
  for (const lace of page.segments) {
    offset += lace;
    if (lace < 255) {
      out.push(page.body.subarray(start, offset));
      start = offset;
    }
  }
  return out;
}
