import { createCipheriv, createHmac } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

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

const HEADER_RING = 4;

const patchedSockets = new WeakSet<Socket>();

/**
 * dgram resolves the destination of every unconnected send through dns.lookup, which for an IP literal
 * defers to process.nextTick (one tick, two closures per datagram). For IPv4 literals we answer
 * synchronously instead; anything else still goes to the original lookup. Best effort: if Node's
 * internals differ, nothing is changed.
 */
export function enableSyncLookup(socket: Socket): void {
  if (patchedSockets.has(socket)) return;
  patchedSockets.add(socket);
  const sym = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  if (!sym) return;
  const state = (
    socket as unknown as Record<symbol, { handle?: { lookup?: unknown } } | undefined>
  )[sym];
  const handle = state?.handle;
  if (!handle || typeof handle.lookup !== 'function') return;
  const original = handle.lookup as (address: string, cb: (...a: unknown[]) => void) => void;
  handle.lookup = (
    address: string,
    cb: (err: Error | null, ip: string, family: number) => void,
  ) => {
    if (isIPv4(address)) cb(null, address, 4);
    else original.call(handle, address, cb as (...a: unknown[]) => void);
  };
}

/**
 * One listener's outbound RTP stream: writes the 12-byte RTP header into a preallocated buffer,
 * encrypts with the cached session keys (no per-packet key derivation, no header object, no concat)
 * and hands [header, ciphertext, tag] to the socket in one sendmsg.
 */
export class SrtpStreamSender {
  private readonly headers: Buffer[] = [];
  private ring = 0;
  private readonly iv: Buffer;
  private readonly gcm: boolean;
  private readonly rocBuf = Buffer.alloc(4);
  private roc = 0;
  private lastSeq = -1;
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
    this.iv = Buffer.alloc(this.gcm ? 12 : 16);
    for (let i = 0; i < HEADER_RING; i++) {
      const h = Buffer.alloc(12);
      h[0] = 0x80;
      h[1] = payloadType & 0x7f;
      h.writeUInt32BE(ssrc >>> 0, 8);
      this.headers.push(h);
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

  send(
    socket: Socket,
    port: number,
    address: string,
    seq: number,
    timestamp: number,
    marker: boolean,
    payload: Uint8Array,
  ): number {
    const h = this.headers[this.ring];
    this.ring = (this.ring + 1) % HEADER_RING;
    h[1] = (marker ? 0x80 : 0) | this.payloadType;
    h[2] = (seq >>> 8) & 0xff;
    h[3] = seq & 0xff;
    h.writeUInt32BE(timestamp >>> 0, 4);
    const roc = this.rocFor(seq);
    const iv = this.iv;
    const salt = this.keys.salt;
    let size: number;
    if (this.gcm) {
      // RFC 7714 8.1: IV = (00 00 || SSRC || ROC || SEQ) XOR salt
      iv[0] = 0;
      iv[1] = 0;
      iv.writeUInt32BE(this.ssrc >>> 0, 2);
      iv.writeUInt32BE(roc, 6);
      iv[10] = h[2];
      iv[11] = h[3];
      for (let i = 0; i < 12; i++) iv[i] ^= salt[i];
      const cipher = createCipheriv('aes-128-gcm', this.keys.key, iv);
      cipher.setAAD(h);
      const enc = cipher.update(payload);
      cipher.final();
      const tag = cipher.getAuthTag();
      socket.send([h, enc, tag], port, address);
      size = 28 + enc.length;
    } else {
      // RFC 3711 4.1.1: IV = (salt << 16) XOR (SSRC << 64) XOR (index << 16)
      iv.fill(0);
      iv.writeUInt32BE(this.ssrc >>> 0, 4);
      iv.writeUInt32BE(roc, 8);
      iv[12] = h[2];
      iv[13] = h[3];
      for (let i = 0; i < 14; i++) iv[i] ^= salt[i];
      const cipher = createCipheriv('aes-128-ctr', this.keys.key, iv);
      const enc = cipher.update(payload);
      this.rocBuf.writeUInt32BE(roc, 0);
      const tag = createHmac('sha1', this.keys.authKey)
        .update(h)
        .update(enc)
        .update(this.rocBuf)
        .digest()
        .subarray(0, 10);
      socket.send([h, enc, tag], port, address);
      size = 22 + enc.length;
    }
    this.packets++;
    this.bytes += size;
    return size;
  }
}
