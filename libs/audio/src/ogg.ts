/**
 * Ogg container (RFC 3533) reading and writing, enough for Ogg/Opus (RFC 7845):
 * pages → packets for one logical stream, and a small muxer (tests, recordings).
 */

export class OggError extends Error {
  override name = 'OggError';
}

export interface OggPage {
  /** Header type flags: 0x01 continued packet, 0x02 beginning of stream, 0x04 end of stream. */
  headerType: number;
  granulePosition: bigint;
  serial: number;
  sequence: number;
  /** Segment lacing values. */
  segments: number[];
  /** Page body (all segments concatenated). */
  body: Buffer;
  /** Byte offset of the page in the input. */
  offset: number;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** The Ogg CRC-32 (polynomial 0x04c11db7, no reflection, initial value 0). */
export function oggCrc32(data: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < data.length; i++) {
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ data[i]) & 0xff]) >>> 0;
  }
  return crc >>> 0;
}

/**
 * The Ogg page at `pos` of `data`, checked (capture pattern, version, CRC unless `verifyCrc` is false):
 * the page (its body a view of `data`) and its length, or null while `data` ends before the page does.
 * `offset` is the stream offset of `data[0]`, for messages. The one page reader: whole files
 * (parseOggPages) and live sources (OggPageReader) both read through it.
 */
export function readOggPage(
  data: Buffer,
  pos: number,
  { verifyCrc = true, offset = 0 }: { verifyCrc?: boolean; offset?: number } = {},
): { page: OggPage; length: number } | null {
  if (data.length - pos < 27) return null;
  if (
    data[pos] !== 0x4f ||
    data[pos + 1] !== 0x67 ||
    data[pos + 2] !== 0x67 ||
    data[pos + 3] !== 0x53
  ) {
    throw new OggError(`not an Ogg stream: no "OggS" page at byte ${offset + pos}`);
  }
  const version = data[pos + 4];
  if (version !== 0)
    throw new OggError(`unsupported Ogg version ${version} at byte ${offset + pos}`);
  const nSegments = data[pos + 26];
  const headerLen = 27 + nSegments;
  if (data.length - pos < headerLen) return null;
  const segments: number[] = [];
  let bodyLen = 0;
  for (let i = 0; i < nSegments; i++) {
    segments.push(data[pos + 27 + i]);
    bodyLen += data[pos + 27 + i];
  }
  if (data.length - pos < headerLen + bodyLen) return null;
  const crc = data.readUInt32LE(pos + 22);
  if (verifyCrc) {
    const copy = Buffer.from(data.subarray(pos, pos + headerLen + bodyLen));
    copy.writeUInt32LE(0, 22);
    if (oggCrc32(copy) !== crc) throw new OggError(`Ogg page CRC mismatch at byte ${offset + pos}`);
  }
  const page: OggPage = {
    headerType: data[pos + 5],
    granulePosition: data.readBigInt64LE(pos + 6),
    serial: data.readUInt32LE(pos + 14),
    sequence: data.readUInt32LE(pos + 18),
    segments,
    body: data.subarray(pos + headerLen, pos + headerLen + bodyLen),
    offset: offset + pos,
  };
  return { page, length: headerLen + bodyLen };
}

/** Splits an Ogg byte stream into pages, checking capture patterns and CRCs. */
export function* parseOggPages(
  data: Buffer,
  opts: { verifyCrc?: boolean } = {},
): Generator<OggPage> {
  let pos = 0;
  while (pos < data.length) {
    const read = readOggPage(data, pos, opts);
    if (!read) throw new OggError(`truncated Ogg page at byte ${pos}`);
    yield read.page;
    pos += read.length;
  }
}

export interface OggPacket {
  serial: number;
  data: Buffer;
  /** Granule position of the page on which the packet ends. */
  granulePosition: bigint;
}

/** Reassembles packets (lacing, packets spanning pages) from Ogg pages, for every logical stream. */
export function* parseOggPackets(
  data: Buffer,
  opts: { verifyCrc?: boolean } = {},
): Generator<OggPacket> {
  const partial = new Map<number, Buffer[]>();
  for (const page of parseOggPages(data, opts)) {
    let parts = partial.get(page.serial) ?? [];
    if (!(page.headerType & 0x01) && parts.length > 0) {
      // A packet was left unfinished but this page does not continue it: drop it.
      parts = [];
    }
    // A continuation page whose packet start we never saw (stream joined mid-packet): drop the tail.
    let dropFirst = (page.headerType & 0x01) !== 0 && parts.length === 0;
    let offset = 0;
    let start = 0;
    for (const lace of page.segments) {
      offset += lace;
      if (lace < 255) {
        parts.push(page.body.subarray(start, offset));
        if (!dropFirst) {
          yield {
            serial: page.serial,
            data: Buffer.concat(parts),
            granulePosition: page.granulePosition,
          };
        }
        dropFirst = false;
        parts = [];
        start = offset;
      }
    }
    if (start < offset && !dropFirst) parts.push(page.body.subarray(start, offset));
    partial.set(page.serial, parts);
  }
}

export interface OpusHead {
  version: number;
  channels: number;
  preSkip: number;
  inputSampleRate: number;
  outputGain: number;
  mappingFamily: number;
}

export function parseOpusHead(packet: Buffer): OpusHead {
  if (packet.length < 19 || packet.toString('latin1', 0, 8) !== 'OpusHead') {
    throw new OggError('not an OpusHead packet');
  }
  return {
    version: packet[8],
    channels: packet[9],
    preSkip: packet.readUInt16LE(10),
    inputSampleRate: packet.readUInt32LE(12),
    outputGain: packet.readInt16LE(16),
    mappingFamily: packet[18],
  };
}

export interface OggOpusFile {
  head: OpusHead;
  serial: number;
  /** Audio packets in order, without OpusHead and OpusTags. */
  packets: Buffer[];
}

/** Reads the first Opus stream of an Ogg file: its OpusHead and its audio packets. */
export function readOggOpus(data: Buffer, opts: { verifyCrc?: boolean } = {}): OggOpusFile {
  let serial: number | undefined;
  let head: OpusHead | undefined;
  let sawTags = false;
  const packets: Buffer[] = [];
  for (const packet of parseOggPackets(data, opts)) {
    if (serial === undefined) {
      if (packet.data.length >= 8 && packet.data.toString('latin1', 0, 8) === 'OpusHead') {
        serial = packet.serial;
        head = parseOpusHead(packet.data);
      }
      continue;
    }
    if (packet.serial !== serial) continue;
    if (!sawTags) {
      if (packet.data.toString('latin1', 0, 8) !== 'OpusTags')
        throw new OggError('OpusTags packet missing');
      sawTags = true;
      continue;
    }
    if (packet.data.length === 0) continue;
    packets.push(packet.data);
  }
  if (!head || serial === undefined)
    throw new OggError('no Opus stream (OpusHead) found in the Ogg data');
  return { head, serial, packets };
}

/** Builds an OpusHead packet (channel mapping family 0). */
export function buildOpusHead(channels: number, preSkip = 312, inputSampleRate = 48000): Buffer {
  const b = Buffer.alloc(19);
  b.write('OpusHead', 0, 'latin1');
  b[8] = 1;
  b[9] = channels;
  b.writeUInt16LE(preSkip, 10);
  b.writeUInt32LE(inputSampleRate, 12);
  b.writeInt16LE(0, 16);
  b[18] = 0;
  return b;
}

/** Builds an OpusTags packet. */
export function buildOpusTags(vendor = 'radio-broadcaster', comments: string[] = []): Buffer {
  const parts: Buffer[] = [Buffer.from('OpusTags', 'latin1')];
  const v = Buffer.from(vendor, 'utf8');
  const len = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n, 0);
    return b;
  };
  parts.push(len(v.length), v, len(comments.length));
  for (const c of comments) {
    const cb = Buffer.from(c, 'utf8');
    parts.push(len(cb.length), cb);
  }
  return Buffer.concat(parts);
}

/** Serializes one Ogg page, computing its CRC. */
export function buildOggPage(p: Omit<OggPage, 'offset'>): Buffer {
  if (p.segments.length > 255) throw new OggError('too many segments for one page');
  const header = Buffer.alloc(27 + p.segments.length);
  header.write('OggS', 0, 'latin1');
  header[4] = 0;
  header[5] = p.headerType;
  header.writeBigInt64LE(p.granulePosition, 6);
  header.writeUInt32LE(p.serial >>> 0, 14);
  header.writeUInt32LE(p.sequence >>> 0, 18);
  header.writeUInt32LE(0, 22);
  header[26] = p.segments.length;
  p.segments.forEach((s, i) => (header[27 + i] = s));
  const page = Buffer.concat([header, p.body]);
  page.writeUInt32LE(oggCrc32(page), 22);
  return page;
}

/**
 * The two header pages of an Ogg/Opus stream (OpusHead, then OpusTags), numbered so the first audio
 * page is `firstAudioSequence`: for whole files (writeOggOpus) and live streams (OggOpusWriter).
 */
export function opusHeaderPages(o: {
  serial: number;
  channels: number;
  preSkip: number;
  firstAudioSequence: number;
  vendor?: string;
  comments?: string[];
}): Buffer {
  const head = buildOpusHead(o.channels, o.preSkip);
  const tags = buildOpusTags(o.vendor, o.comments);
  const page = (headerType: number, sequence: number, body: Buffer) =>
    buildOggPage({
      headerType,
      granulePosition: 0n,
      serial: o.serial,
      sequence,
      segments: lacingOf(body.length),
      body,
    });
  return Buffer.concat([
    page(0x02, o.firstAudioSequence - 2, head),
    page(0, o.firstAudioSequence - 1, tags),
  ]);
}

/**
 * Writes an Ogg/Opus stream: OpusHead and OpusTags on their own pages, then audio packets
 * (at most `packetsPerPage` per page; packets bigger than one page's capacity span pages).
 */
export function writeOggOpus(
  packets: { data: Buffer; samples: number }[],
  opts: { channels?: number; serial?: number; preSkip?: number; packetsPerPage?: number } = {},
): Buffer {
  const channels = opts.channels ?? 2;
  const serial = opts.serial ?? 0x5241_4449;
  const preSkip = opts.preSkip ?? 312;
  const perPage = opts.packetsPerPage ?? 10;
  const pages: Buffer[] = [opusHeaderPages({ serial, channels, preSkip, firstAudioSequence: 2 })];
  let sequence = 2;
  let granule = BigInt(preSkip);
  // Segments and bodies of the page being built; a packet may be continued on the next page.
  let segs: number[] = [];
  let bodies: Buffer[] = [];
  let continued = false;
  let packetsOnPage = 0;
  let pageHasPacketEnd = false;
  const flush = (last: boolean, nextContinues: boolean) => {
    if (segs.length === 0) return;
    pages.push(
      buildOggPage({
        headerType: (continued ? 0x01 : 0) | (last ? 0x04 : 0),
        granulePosition: pageHasPacketEnd ? granule : -1n,
        serial,
        sequence: sequence++,
        segments: segs,
        body: Buffer.concat(bodies),
      }),
    );
    segs = [];
    bodies = [];
    packetsOnPage = 0;
    pageHasPacketEnd = false;
    continued = nextContinues;
  };
  packets.forEach((packet, index) => {
    const laces = lacingOf(packet.data.length);
    let offset = 0;
    for (let i = 0; i < laces.length; i++) {
      if (segs.length === 255) flush(false, true);
      segs.push(laces[i]);
      bodies.push(packet.data.subarray(offset, offset + laces[i]));
      offset += laces[i];
    }
    granule += BigInt(packet.samples);
    pageHasPacketEnd = true;
    packetsOnPage++;
    const last = index === packets.length - 1;
    if (packetsOnPage >= perPage || last) flush(last, false);
  });
  if (packets.length === 0) {
    pages.push(
      buildOggPage({
        headerType: 0x04,
        granulePosition: granule,
        serial,
        sequence,
        segments: [],
        body: Buffer.alloc(0),
      }),
    );
  }
  return Buffer.concat(pages);
}

/** Lacing values of one packet. */
export function lacingOf(length: number): number[] {
  const out: number[] = [];
  let n = length;
  while (n >= 255) {
    out.push(255);
    n -= 255;
  }
  out.push(n);
  return out;
}
