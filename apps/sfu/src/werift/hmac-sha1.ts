/**
 * HMAC-SHA1 for the SRTP send path (AES_CM_128_HMAC_SHA1_80, the profile browsers negotiate).
 *
 * node:crypto costs a new Hmac object per packet (key schedule, native wrapper, three update calls and a
 * digest, each a crossing into C++) for a message of ~200 bytes: ~3 µs per packet per listener, and
 * garbage. Here the inner and outer pad states are computed once per key and each packet costs the
 * SHA-1 compressions of its own bytes, in preallocated memory, with no allocation.
 */

/** One SHA-1 compression of the 64 bytes at `m[off..off+64)` into `st` (FIPS 180-4 6.1.2). */
type Compress = (st: Int32Array, m: DataView, off: number) => void;

const K = [0x5a827999, 0x6ed9eba1, -0x70e44324, -0x359d3e2a];

/**
 * The 80 rounds written out once, when this module loads: with the five state words and the 16-word
 * message schedule as locals, V8 keeps them in registers, which makes a compression ~2.5× faster
 * than a loop over an array (SHA-1 is most of the per-packet cost of SRTP's AES-CM profile).
 */
function writeOutCompress(): Compress {
  const v = ['a', 'b', 'c', 'd', 'e'];
  const body = ['let a = st[0], b = st[1], c = st[2], d = st[3], e = st[4];'];
  for (let i = 0; i < 16; i++) body.push(`let w${i} = m.getInt32(off + ${4 * i});`);
  for (let t = 0; t < 80; t++) {
    // instead of moving the words along after each round, the names take turns in each role
    const [a, b, c, d, e] = v.map((_, k) => v[(k - t + 80) % 5]!);
    const w = `w${t % 16}`;
    if (t >= 16) {
      const x = [t - 3, t - 8, t - 14].map((j) => `w${j % 16}`).join(' ^ ');
      body.push(`${w} ^= ${x}; ${w} = (${w} << 1) | (${w} >>> 31);`);
    }
    const f =
      t < 20
        ? `(${b} & ${c}) | (~${b} & ${d})`
        : t >= 40 && t < 60
          ? `(${b} & ${c}) | (${b} & ${d}) | (${c} & ${d})`
          : `${b} ^ ${c} ^ ${d}`;
    body.push(
      `${e} = (((${a} << 5) | (${a} >>> 27)) + (${f}) + ${e} + ${K[Math.floor(t / 20)]} + ${w}) | 0;`,
      `${b} = (${b} << 30) | (${b} >>> 2);`,
    );
  }
  v.forEach((name, i) => body.push(`st[${i}] = (st[${i}] + ${name}) | 0;`));
  return new Function('st', 'm', 'off', body.join('\n')) as Compress;
}

const compress = writeOutCompress();

const SHA1_IV = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];

/** HMAC-SHA1 with one fixed key (RFC 2104), truncated tags written in place. */
export class HmacSha1 {
  private readonly inner = new Int32Array(5);
  private readonly outer = new Int32Array(5);
  private readonly st = new Int32Array(5);
  /** The inner hash's last block(s): the message's tail, 0x80, zeros and the length. */
  private readonly block = new Uint8Array(64);
  private readonly blockView = new DataView(this.block.buffer);
  /** The outer hash's one block: the inner digest, then padding that never changes. */
  private readonly outerBlock = new Uint8Array(64);
  private readonly outerView = new DataView(this.outerBlock.buffer);

  constructor(key: Uint8Array) {
    if (key.length > 64) throw new Error('HMAC-SHA1 keys longer than 64 bytes are not supported');
    const pad = new Uint8Array(64);
    const padView = new DataView(pad.buffer);
    this.inner.set(SHA1_IV);
    for (let i = 0; i < 64; i++) pad[i] = (key[i] ?? 0) ^ 0x36;
    compress(this.inner, padView, 0);
    this.outer.set(SHA1_IV);
    for (let i = 0; i < 64; i++) pad[i] = (key[i] ?? 0) ^ 0x5c;
    compress(this.outer, padView, 0);
    this.outerBlock[20] = 0x80;
    this.outerView.setUint16(62, (64 + 20) * 8); // the outer pad block counts
  }

  /**
   * Writes the first `tagLength` (≤ 20) bytes of HMAC(key, buf[0..length)) to `out[outOffset..]`.
   * The message is read completely before the tag is written, so `out` may overlap its tail.
   * `view` is a DataView of `buf` (callers that sign the same buffers again keep one).
   */
  sign(
    buf: Uint8Array,
    length: number,
    out: Uint8Array,
    outOffset: number,
    tagLength: number,
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength),
  ): void {
    const st = this.st;
    const blk = this.block;
    st.set(this.inner);
    let off = 0;
    for (; off + 64 <= length; off += 64) compress(st, view, off);
    const rest = length - off;
    blk.set(buf.subarray(off, length));
    blk[rest] = 0x80;
    blk.fill(0, rest + 1);
    if (rest >= 56) {
      compress(st, this.blockView, 0);
      blk.fill(0, 0, 56);
    }
    const bits = (length + 64) * 8; // the inner pad block counts
    this.blockView.setUint32(56, Math.floor(bits / 0x100000000));
    this.blockView.setUint32(60, bits >>> 0);
    compress(st, this.blockView, 0);
    this.finish(out, outOffset, tagLength);
  }

  /**
   * `sign` for a message whose buffer has room after it ({@link HMAC_SHA1_PAD_ROOM} bytes): the
   * padding is written there, in place, and the last blocks are compressed straight from `buf`
   * (no copy of the message's tail). Those bytes are left changed; the tag may go over them.
   */
  signPadded(
    buf: Uint8Array,
    view: DataView,
    length: number,
    out: Uint8Array,
    outOffset: number,
    tagLength: number,
  ): void {
    const st = this.st;
    const inner = this.inner;
    // five words: plain stores beat a TypedArray.prototype.set call
    st[0] = inner[0]!;
    st[1] = inner[1]!;
    st[2] = inner[2]!;
    st[3] = inner[3]!;
    st[4] = inner[4]!;
    // 0x80, zeros up to 8 bytes before a block boundary, the bit length (the inner pad block counts)
    const padded = (length + 8 + 64) & ~63;
    buf[length] = 0x80;
    for (let i = length + 1; i < padded - 8; i++) buf[i] = 0;
    const bits = (length + 64) * 8;
    view.setUint32(padded - 8, Math.floor(bits / 0x100000000));
    view.setUint32(padded - 4, bits >>> 0);
    for (let off = 0; off < padded; off += 64) compress(st, view, off);
    this.finish(out, outOffset, tagLength);
  }

  /** The outer hash over the inner digest in `st`; the first `tagLength` bytes to `out`. */
  private finish(out: Uint8Array, outOffset: number, tagLength: number): void {
    const st = this.st;
    const ov = this.outerView;
    const outer = this.outer;
    for (let i = 0; i < 5; i++) {
      ov.setInt32(4 * i, st[i]!);
      st[i] = outer[i]!;
    }
    compress(st, ov, 0);
    for (let i = 0; i < tagLength; i++)
      out[outOffset + i] = (st[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
  }
}

/** Bytes `signPadded` may write after the message: the padding, up to one block and 8 bytes. */
export const HMAC_SHA1_PAD_ROOM = 72;
