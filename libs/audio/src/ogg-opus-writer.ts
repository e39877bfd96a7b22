/**
 * Ogg/Opus for live output (HTTP listeners, relays, recordings): every audio page is built once
 * and its bytes shared by every reader; a reader that joins mid-stream gets its own two header
 * pages, numbered so that they run straight into the next shared page (no sequence gap).
 */
import { buildOggPage, lacingOf, opusHeaderPages } from './ogg.js';

export interface OggOpusWriterOptions {
  /** Logical stream serial (default random). */
  serial?: number;
  /** Channels announced in OpusHead (default 2: WebRTC Opus is always signalled as stereo). */
  channels?: number;
  /** Pre-skip announced in OpusHead (default 312, libopus' lookahead). */
  preSkip?: number;
  /** Vendor string of OpusTags. */
  vendor?: string;
}

export class OggOpusWriter {
  readonly serial: number;
  private readonly channels: number;
  private readonly preSkip: number;
  private readonly vendor: string;
  private comments: string[] = [];
  /** Sequence number of the next audio page. */
  private sequence = 2;
  private granule: bigint;

  constructor(opts: OggOpusWriterOptions = {}) {
    this.serial = (opts.serial ?? Math.floor(Math.random() * 0xffffffff)) >>> 0;
    this.channels = opts.channels ?? 2;
    this.preSkip = opts.preSkip ?? 312;
    this.vendor = opts.vendor ?? 'radio-broadcaster';
    this.granule = BigInt(this.preSkip);
  }

  /** Comments (`TITLE=…`) put in the OpusTags of readers that start from now on. */
  setComments(comments: Record<string, string | null | undefined>): void {
    this.comments = Object.entries(comments)
      .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')
      .map(([k, v]) => `${k.toUpperCase()}=${v}`);
  }

  /**
   * The two header pages (OpusHead, OpusTags) for a reader whose first audio page is the next one
   * {@link page} returns (or, with `before`, a page already built with that sequence number).
   */
  headers(firstAudioSequence = this.sequence): Buffer {
    return opusHeaderPages({
      serial: this.serial,
      channels: this.channels,
      preSkip: this.preSkip,
      firstAudioSequence,
      vendor: this.vendor,
      comments: this.comments,
    });
  }

  /** One audio page holding one packet of `samples` 48 kHz samples. */
  page(packet: Buffer, samples: number): { bytes: Buffer; sequence: number } {
    this.granule += BigInt(samples);
    const sequence = this.sequence++;
    const bytes = buildOggPage({
      headerType: 0,
      granulePosition: this.granule,
      serial: this.serial,
      sequence,
      segments: lacingOf(packet.length),
      body: packet,
    });
    return { bytes, sequence };
  }

  /** An empty end-of-stream page: a reader that receives it knows the stream ended on purpose. */
  end(): Buffer {
    return buildOggPage({
      headerType: 0x04,
      granulePosition: this.granule,
      serial: this.serial,
      sequence: this.sequence++,
      segments: [],
      body: Buffer.alloc(0),
    });
  }
}
