import { type Cipheriv, createCipheriv } from 'node:crypto';
import type { DatagramOut } from './datagram-out.js';
import { HMAC_SHA1_PAD_ROOM, HmacSha1 } from '../werift/hmac-sha1.js';

/** SRTP protection profiles (RFC 5764 / RFC 7714 ids as werift names them). */
const PROFILE_AES128_CM_SHA1_80 = 0x0001;
const PROFILE_AEAD_AES_128_GCM = 0x0007;

/** The part of werift's SRTP context we read (werift/lib/rtp/src/srtp/context/context.js). */
interface WeriftSrtpContext {
  profile: number;
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  srtpSessionAuthTag: Buffer;
}

export interface SrtpKeys {
  profile: number;
  key: Buffer;
  salt: Buffer;
  authKey: Buffer;
}

/** Reads the outbound SRTP session keys werift derived after the DTLS handshake. */
export function extractSrtpKeys(dtlsTransport: unknown): SrtpKeys | null {
  const ctx = (dtlsTransport as { srtp?: { localContext?: WeriftSrtpContext } })?.srtp
    ?.localContext;
  if (!ctx || !Buffer.isBuffer(ctx.srtpSessionKey) || !Buffer.isBuffer(ctx.srtpSessionSalt))
    return null;
  if (ctx.profile !== PROFILE_AEAD_AES_128_GCM && ctx.profile !== PROFILE_AES128_CM_SHA1_80)
    return null;
  return {
    profile: ctx.profile,
    key: ctx.srtpSessionKey,
    salt: ctx.srtpSessionSalt,
    authKey: ctx.srtpSessionAuthTag,
  };
}

/** Packets whose AES-CM keystream is produced in one call (one native crossing per batch). */
const KEYSTREAM_BATCH = 16;
const HEADER_BYTES = 12;
const CM_TAG_BYTES = 10;
const GCM_TAG_BYTES = 16;

/**
 * The packet being written, shared by every sender of the thread: a datagram the kernel takes at once
 * (the normal case) is copied out during the send call, so the next listener's packet can be written
 * over it. When libuv has to queue a send (the socket's buffer is full), the queued send keeps this
 * buffer and the thread takes a new one: nothing is ever sent half-written. One buffer instead of a
 * ring per listener keeps the fan-out's working set small at thousands of listeners.
 */
class Scratch {
  out = Buffer.alloc(0);
  out32 = new Int32Array(0);
  outView = new DataView(new ArrayBuffer(0));
  counters = new DataView(new ArrayBuffer(0));
  /** `out.subarray(0, n)` by length: a station's packets come in a few sizes, each made once. */
  private views = new Map<number, Buffer>();

  constructor() {
    this.renewOut(HEADER_BYTES + 1024);
  }

  /** A fresh output buffer of at least `size` bytes (its own ArrayBuffer: the views are aligned). */
  renewOut(size: number): void {
    const b = Buffer.alloc(Math.max(this.out.length, (size + 3) & ~3));
    this.out = b;
    this.out32 = new Int32Array(b.buffer, 0, b.length >>> 2);
    this.outView = new DataView(b.buffer, 0, b.length);
    this.views = new Map();
    this.lastLength = -1;
  }

  private lastLength = -1;
  private lastView: Buffer = Buffer.alloc(0);

  /** The first `length` bytes of `out` (a fan-out asks for one length many times in a row). */
  head(length: number): Buffer {
    if (length === this.lastLength) return this.lastView;
    let v = this.views.get(length);
    if (!v) {
      if (this.views.size >= 64) this.views.clear();
      v = this.out.subarray(0, length);
      this.views.set(length, v);
    }
    this.lastLength = length;
    this.lastView = v;
    return v;
  }

  /** Room for `bytes` of AES-CM counter blocks (written whole at each keystream batch). */
  counterSpace(bytes: number): DataView {
    if (this.counters.byteLength < bytes) this.counters = new DataView(new ArrayBuffer(bytes));
    return this.counters;
  }
}
const scratch = new Scratch();

/**
 * One packet of a station as every listener's sender reads it, prepared once per fan-out: the
 * payload also as 32-bit words (its own aligned, zero-padded copy) for a word-at-a-time XOR.
 */
export class OutgoingRtp {
  readonly words: Int32Array;
  constructor(
    readonly seq: number,
    readonly timestamp: number,
    readonly marker: boolean,
    readonly payload: Uint8Array,
  ) {
    const padded = new Uint8Array((payload.length + 3) & ~3);
    padded.set(payload);
    this.words = new Int32Array(padded.buffer);
  }
}

/**
 * One listener's outbound RTP stream: writes header, encrypted payload and tag into one of a few
 * preallocated buffers and hands it to the socket in one send. No per-packet key derivation or
 * header object.
 *
 * AES_CM_128_HMAC_SHA1_80 (what browsers negotiate): the AES counter-mode keystream does not depend on
 * the payload, so it is produced for KEYSTREAM_BATCH packets at a time by one persistent AES-ECB cipher
 * (one native call per batch instead of a cipher object per packet), and the HMAC-SHA1 tag is computed
 * in JS from precomputed pads (`HmacSha1`). AEAD_AES_128_GCM uses node:crypto's GCM per packet.
 */
export class SrtpStreamSender {
  private readonly gcm: boolean;
  private roc = 0;
  private lastSeq = -1;
  // GCM
  private readonly iv: Buffer;
  // AES-CM: keystream of packets [ksFirst, ksFirst + KEYSTREAM_BATCH), ksBlocks 16-byte blocks each
  private readonly ecb: Cipheriv | null = null;
  private readonly hmac: HmacSha1 | null = null;
  private readonly ivPrefix = Buffer.alloc(14);
  /** The batch's keystream, in 32-bit words for the XOR (its bytes in `keystream`). */
  private keystream = new Uint8Array(0);
  private keystream32 = new Int32Array(0);
  private ksFirst = -1;
  private ksBlocks = 0;
  packets = 0;
  bytes = 0;
  get profileName(): string {
    return this.gcm ? 'AEAD_AES_128_GCM' : 'AES_CM_128_HMAC_SHA1_80';
  }

  constructor(
    private readonly keys: SrtpKeys,
    readonly ssrc: number,
    readonly payloadType: number,
  ) {
    this.gcm = keys.profile === PROFILE_AEAD_AES_128_GCM;
    this.iv = Buffer.alloc(12);
    if (!this.gcm) {
      this.ecb = createCipheriv('aes-128-ecb', keys.key, null);
      this.ecb.setAutoPadding(false);
      this.hmac = new HmacSha1(keys.authKey);
      // RFC 3711 4.1.1: IV = (salt << 16) XOR (SSRC << 64) XOR (index << 16); the index is XORed per packet
      keys.salt.copy(this.ivPrefix, 0, 0, 14);
      for (let i = 0; i < 4; i++) this.ivPrefix[4 + i]! ^= (ssrc >>> (24 - 8 * i)) & 0xff;
    }
  }

  /** Rollover counter for this sequence number (RFC 3711 3.3.1, sender side). */
  private rocFor(seq: number): number {
    if (this.lastSeq < 0) {
      this.lastSeq = seq;
      return this.roc;
    }
    const diff = (seq - this.lastSeq) & 0xffff;
    if (diff === 0) return this.roc;
    if (diff < 0x8000) {
      if (seq < this.lastSeq) this.roc = (this.roc + 1) >>> 0;
      this.lastSeq = seq;
      return this.roc;
    }
    // late packet from before the last wrap
    return seq > this.lastSeq && this.roc > 0 ? this.roc - 1 : this.roc;
  }

  /** Encrypts `pkt` for this listener and hands it to `out`; returns the datagram's length. */
  send(out: DatagramOut, pkt: OutgoingRtp): number {
    const { seq, payload } = pkt;
    const n = payload.length;
    // AES-CM: room for the ROC the tag covers and the HMAC's padding, written in place
    const size = HEADER_BYTES + n + (this.gcm ? GCM_TAG_BYTES : 4 + HMAC_SHA1_PAD_ROOM);
    if (scratch.out.length < size) scratch.renewOut(size);
    const buf = scratch.out;
    const view = scratch.outView;
    view.setUint32(
      0,
      (0x80000000 | ((pkt.marker ? 0x80 : 0) << 16) | (this.payloadType << 16) | seq) >>> 0,
    );
    view.setUint32(4, pkt.timestamp >>> 0);
    view.setUint32(8, this.ssrc >>> 0);
    const roc = this.rocFor(seq);
    let length: number;
    if (this.gcm) {
      // RFC 7714 8.1: IV = (00 00 || SSRC || ROC || SEQ) XOR salt
      const iv = this.iv;
      const salt = this.keys.salt;
      iv[0] = 0;
      iv[1] = 0;
      iv.writeUInt32BE(this.ssrc >>> 0, 2);
      iv.writeUInt32BE(roc, 6);
      iv[10] = buf[2]!;
      iv[11] = buf[3]!;
      for (let i = 0; i < 12; i++) iv[i]! ^= salt[i]!;
      const cipher = createCipheriv('aes-128-gcm', this.keys.key, iv);
      const header = buf.subarray(0, HEADER_BYTES);
      cipher.setAAD(header);
      const enc = cipher.update(payload);
      cipher.final();
      enc.copy(buf, HEADER_BYTES);
      cipher.getAuthTag().copy(buf, HEADER_BYTES + n);
      length = HEADER_BYTES + n + GCM_TAG_BYTES;
    } else {
      const index = roc * 0x10000 + seq;
      const blocks = (n + 15) >>> 4;
      let at = index - this.ksFirst;
      if (this.ksFirst < 0 || at < 0 || at >= KEYSTREAM_BATCH || blocks > this.ksBlocks) {
        this.fillKeystream(index, blocks);
        at = 0;
      }
      // payload XOR keystream a word at a time, straight into `out` (the keystream of one packet
      // starts on a 16-byte boundary; the payload on word 3 of `out`). A last partial word writes up
      // to 3 bytes past the payload, which the ROC below covers.
      const out32 = scratch.out32;
      const ks32 = this.keystream32;
      const pay32 = pkt.words;
      const w0 = (at * this.ksBlocks) << 2;
      const words = pay32.length;
      for (let w = 0; w < words; w++) out32[3 + w] = pay32[w]! ^ ks32[w0 + w]!;
      // RFC 3711 4.2: tag = HMAC-SHA1(auth key, header || encrypted payload || ROC), first 80 bits,
      // written over the ROC once it has been read.
      const end = HEADER_BYTES + n;
      view.setUint32(end, roc);
      this.hmac!.signPadded(buf, view, end + 4, buf, end, CM_TAG_BYTES);
      length = end + CM_TAG_BYTES;
    }
    // libuv queued it: the queued send keeps this buffer, the next packet gets another
    if (!out(scratch.head(length))) scratch.renewOut(size);
    this.packets++;
    this.bytes += length;
    return length;
  }

  /** AES-CM keystream for packets first .. first + KEYSTREAM_BATCH - 1, at least `blocks` blocks each. */
  private fillKeystream(first: number, blocks: number): void {
    // Room for the usual variation of Opus frame sizes without refilling early.
    const per = Math.max(blocks + 4, this.ksBlocks);
    const bytes = KEYSTREAM_BATCH * per * 16;
    const prefix = this.ivPrefix;
    const c = scratch.counterSpace(bytes);
    // RFC 3711 4.1.1: each block is the salted, SSRC'd prefix XOR the 48-bit packet index, then the
    // block counter
    const p0 = prefix.readInt32BE(0);
    const p4 = prefix.readInt32BE(4);
    const p8 = prefix.readUInt32BE(8);
    const p12 = prefix.readUInt16BE(12) << 16;
    let o = 0;
    for (let p = 0; p < KEYSTREAM_BATCH; p++) {
      const index = first + p;
      const hi = Math.floor(index / 0x100000000) & 0xffff;
      const lo = index >>> 0;
      const w8 = p8 ^ ((hi << 16) | (lo >>> 16));
      const w12 = p12 ^ ((lo & 0xffff) << 16);
      for (let j = 0; j < per; j++, o += 16) {
        c.setInt32(o, p0);
        c.setInt32(o + 4, p4);
        c.setInt32(o + 8, w8);
        c.setInt32(o + 12, w12 | j);
      }
    }
    const ks = this.ecb!.update(new Uint8Array(c.buffer, 0, bytes));
    this.keystream = ks;
    // node:crypto's output has a buffer of its own; copy only if it ever is not word-aligned
    if (ks.byteOffset % 4 === 0) {
      this.keystream32 = new Int32Array(ks.buffer, ks.byteOffset, ks.length >>> 2);
    } else {
      const copy = new Uint8Array(ks);
      this.keystream = copy;
      this.keystream32 = new Int32Array(copy.buffer);
    }
    this.ksFirst = first;
    this.ksBlocks = per;
  }
}
