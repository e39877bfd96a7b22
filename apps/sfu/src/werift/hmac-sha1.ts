/**
 * HMAC-SHA1 for the SRTP send path (AES_CM_128_HMAC_SHA1_80, the profile browsers negotiate).
 *
 * node:crypto costs a new Hmac object per packet (key schedule, native wrapper, three update calls and a
 * digest, each a crossing into C++) for a message of ~200 bytes: ~3 µs per packet per listener, and
 * garbage. Here the inner and outer pad states are computed once per key and each packet costs the
 * SHA-1 compressions of its own bytes, in preallocated memory: ~1 µs, no allocation.
 */

const W = new Int32Array(80);

/** One SHA-1 compression of the 64 bytes at `buf[off..off+64)` into `st` (FIPS 180-4 6.1.2). */
function compress(st: Int32Array, buf: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++) {
    const o = off + 4 * i;
    W[i] = (buf[o]! << 24) | (buf[o + 1]! << 16) | (buf[o + 2]! << 8) | buf[o + 3]!;
  }
  for (let i = 16; i < 80; i++) {
    const x = W[i - 3]! ^ W[i - 8]! ^ W[i - 14]! ^ W[i - 16]!;
    W[i] = (x << 1) | (x >>> 31);
  }
  let a = st[0]!;
  let b = st[1]!;
  let c = st[2]!;
  let d = st[3]!;
  let e = st[4]!;
  let t: number;
  for (let i = 0; i < 20; i++) {
    t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 20; i < 40; i++) {
    t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 40; i < 60; i++) {
    t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + W[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 60; i < 80; i++) {
    t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + W[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  st[0] = (st[0]! + a) | 0;
  st[1] = (st[1]! + b) | 0;
  st[2] = (st[2]! + c) | 0;
  st[3] = (st[3]! + d) | 0;
  st[4] = (st[4]! + e) | 0;
}

const SHA1_IV = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];

/** HMAC-SHA1 with one fixed key (RFC 2104), truncated tags written in place. */
export class HmacSha1 {
  private readonly inner = new Int32Array(5);
  private readonly outer = new Int32Array(5);
  private readonly st = new Int32Array(5);
  private readonly block = new Uint8Array(64);

  constructor(key: Uint8Array) {
    if (key.length > 64) throw new Error('HMAC-SHA1 keys longer than 64 bytes are not supported');
    const pad = new Uint8Array(64);
    this.inner.set(SHA1_IV);
    for (let i = 0; i < 64; i++) pad[i] = (key[i] ?? 0) ^ 0x36;
    compress(this.inner, pad, 0);
    this.outer.set(SHA1_IV);
    for (let i = 0; i < 64; i++) pad[i] = (key[i] ?? 0) ^ 0x5c;
    compress(this.outer, pad, 0);
  }

  /**
   * Writes the first `tagLength` (≤ 20) bytes of HMAC(key, buf[0..length)) to `out[outOffset..]`.
   * The message is read completely before the tag is written, so `out` may overlap its tail.
   */
  sign(
    buf: Uint8Array,
    length: number,
    out: Uint8Array,
    outOffset: number,
    tagLength: number,
  ): void {
    const st = this.st;
    const blk = this.block;
    st.set(this.inner);
    let off = 0;
    for (; off + 64 <= length; off += 64) compress(st, buf, off);
    const rest = length - off;
    blk.fill(0);
    blk.set(buf.subarray(off, length));
    blk[rest] = 0x80;
    if (rest >= 56) {
      compress(st, blk, 0);
      blk.fill(0);
    }
    const bits = (length + 64) * 8; // the inner pad block counts
    blk[56] = 0;
    blk[57] = 0;
    blk[58] = (bits / 0x10000000000) & 0xff;
    blk[59] = (bits / 0x100000000) & 0xff;
    blk[60] = (bits >>> 24) & 0xff;
    blk[61] = (bits >>> 16) & 0xff;
    blk[62] = (bits >>> 8) & 0xff;
    blk[63] = bits & 0xff;
    compress(st, blk, 0);
    // outer hash over the 20-byte inner digest
    blk.fill(0);
    for (let i = 0; i < 5; i++) {
      const v = st[i]!;
      blk[4 * i] = v >>> 24;
      blk[4 * i + 1] = (v >>> 16) & 0xff;
      blk[4 * i + 2] = (v >>> 8) & 0xff;
      blk[4 * i + 3] = v & 0xff;
    }
    blk[20] = 0x80;
    blk[62] = ((64 + 20) * 8) >>> 8;
    blk[63] = ((64 + 20) * 8) & 0xff;
    st.set(this.outer);
    compress(st, blk, 0);
    for (let i = 0; i < tagLength; i++)
      out[outOffset + i] = (st[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
  }
}
