import { randomFillSync } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { isStun } from '../net/stun-peek.js';
import { HmacSha1 } from './hmac-sha1.js';

/**
 * The STUN side of a connected listener, without werift: answering the peer's consent checks on the
 * selected pair and sending our own (RFC 7675). werift spends ~50–100 µs of the shard's thread on each
 * such message (object-per-attribute parse, node:crypto HMAC objects, an async transaction with an
 * AbortController and timers per check, debug records built and dropped); at thousands of listeners
 * that is a fifth of the core. Here a check costs a few microseconds: fixed templates per listener,
 * HMAC-SHA1 from precomputed pads, one CRC-32.
 *
 * Everything else the peer sends (checks on other pairs, DTLS, SRTCP) still goes to werift.
 */

const MAGIC_COOKIE = 0x2112a442;
const HEADER = 20;
const BINDING_REQUEST = 0x0001;
const BINDING_SUCCESS = 0x0101;
const ATTR_USERNAME = 0x0006;
const ATTR_MESSAGE_INTEGRITY = 0x0008;
const ATTR_XOR_MAPPED_ADDRESS = 0x0020;
const ATTR_PRIORITY = 0x0024;
const ATTR_ICE_CONTROLLED = 0x8029;
const ATTR_ICE_CONTROLLING = 0x802a;
const ATTR_FINGERPRINT = 0x8028;
const FINGERPRINT_XOR = 0x5354554e;
const INTEGRITY_BYTES = 20;

/** RFC 7675: a consent check every 5 s (randomised ±20 %), consent lost 30 s after the last answer. */
export const CONSENT_INTERVAL_MS = 5000;
export const CONSENT_TIMEOUT_MS = 30_000;

/** Transaction ids come from one random pool per thread (one native call per 256 checks). */
const txPool = Buffer.alloc(12 * 256);
let txAt = txPool.length;
function nextTransactionId(out: Buffer, offset: number): void {
  if (txAt >= txPool.length) {
    randomFillSync(txPool);
    txAt = 0;
  }
  txPool.copy(out, offset, txAt, txAt + 12);
  txAt += 12;
}

/** What the listener's ICE agent agreed on (werift's Connection fields). */
export interface ConsentCredentials {
  localUsername: string;
  localPassword: string;
  remoteUsername: string;
  remotePassword: string;
  /** Our ICE role and tie-breaker (8 bytes), sent with ICE-CONTROLLING or ICE-CONTROLLED. */
  iceControlling: boolean;
  tieBreaker: bigint;
  /** The PRIORITY our checks carry (a peer-reflexive candidate's priority for our host candidate). */
  priority: number;
}

/** What a datagram was to the consent path. */
export type ConsentOutcome =
  /** not ours: werift takes it */
  | 'pass'
  /** the peer's consent check: `reply` holds our answer */
  | 'request'
  /** the answer to our own check: consent refreshed */
  | 'response'
  /** STUN for this pair that failed MESSAGE-INTEGRITY: dropped */
  | 'forged';

export class ListenerConsent {
  private readonly localKey: HmacSha1;
  private readonly remoteKey: HmacSha1;
  private readonly localUfrag: Buffer;
  /** The peer's role attribute that would mean a role conflict (werift resolves those). */
  private readonly conflicting: number;
  /** Our Binding request, all but the transaction id, MESSAGE-INTEGRITY and FINGERPRINT. */
  private readonly request: Buffer;
  /** Our Binding success answer to the peer's address, likewise. */
  private readonly success: Buffer;
  private readonly scratch = Buffer.alloc(1500);
  private readonly scratchView = new DataView(this.scratch.buffer, this.scratch.byteOffset, 1500);
  private readonly tag = Buffer.alloc(INTEGRITY_BYTES);
  /** The transaction id of our check in flight (compared as three words). */
  private pending: [number, number, number] | null = null;
  /** When consent was last given (an authenticated answer to one of our checks). */
  consentAt: number;
  /** When our next check is due. */
  nextCheckAt: number;
  /** Authenticated STUN messages from the peer so far (its checks and its answers). */
  heard = 0;

  constructor(creds: ConsentCredentials, remote: readonly [string, number], now = Date.now()) {
    // throws for keys longer than 64 bytes: the caller keeps werift's path then
    this.localKey = new HmacSha1(Buffer.from(creds.localPassword, 'utf8'));
    this.remoteKey = new HmacSha1(Buffer.from(creds.remotePassword, 'utf8'));
    this.localUfrag = Buffer.from(creds.localUsername, 'utf8');
    this.conflicting = creds.iceControlling ? ATTR_ICE_CONTROLLING : ATTR_ICE_CONTROLLED;
    this.request = buildRequestTemplate(creds);
    this.success = buildSuccessTemplate(remote);
    this.consentAt = now;
    this.nextCheckAt = now + jitter(CONSENT_INTERVAL_MS);
  }

  /**
   * Looks at a datagram from the selected pair's remote address. For the peer's Binding request
   * (USERNAME ours, MESSAGE-INTEGRITY with our password) the answer is written to `reply`.
   */
  receive(data: Buffer, now: number): { outcome: ConsentOutcome; reply?: Buffer } {
    if (!isStun(data)) return { outcome: 'pass' };
    const type = data.readUInt16BE(0);
    if (type === BINDING_REQUEST) {
      const attrs = scan(data, this.conflicting);
      // a role conflict is werift's to resolve; a check for another ufrag (an ICE restart) too
      if (!attrs || attrs.conflict || !this.isOurUsername(data, attrs.username)) {
        return { outcome: 'pass' };
      }
      if (!this.verify(data, attrs.integrity, this.localKey)) return { outcome: 'forged' };
      this.heard++;
      return { outcome: 'request', reply: this.answer(data) };
    }
    if (type === BINDING_SUCCESS && this.pending && this.isPending(data)) {
      const attrs = scan(data, this.conflicting);
      if (!attrs || !this.verify(data, attrs.integrity, this.remoteKey)) {
        return { outcome: 'forged' };
      }
      this.pending = null;
      this.heard++;
      this.consentAt = now;
      return { outcome: 'response' };
    }
    return { outcome: 'pass' };
  }

  /** Our next consent check (a new transaction; an unanswered one is given up). */
  check(now: number): Buffer {
    const out = this.scratch;
    const t = this.request;
    t.copy(out, 0);
    nextTransactionId(out, 8);
    this.pending = [out.readInt32BE(8), out.readInt32BE(12), out.readInt32BE(16)];
    this.nextCheckAt = now + jitter(CONSENT_INTERVAL_MS);
    return this.seal(t.length, this.remoteKey);
  }

  /** Consent lapsed: no authenticated answer for CONSENT_TIMEOUT_MS. */
  expired(now: number): boolean {
    return now - this.consentAt > CONSENT_TIMEOUT_MS;
  }

  private answer(request: Buffer): Buffer {
    const out = this.scratch;
    this.success.copy(out, 0);
    request.copy(out, 8, 8, HEADER); // the request's transaction id
    // XOR-MAPPED-ADDRESS of IPv4 is XORed with the cookie only, so the template holds it already
    return this.seal(this.success.length, this.localKey);
  }

  /**
   * Appends MESSAGE-INTEGRITY (HMAC with `key`: the peer's password for our requests, ours for our
   * answers) and FINGERPRINT to the message of `length` bytes in `scratch`; returns a copy (the
   * caller's send may be queued).
   */
  private seal(length: number, key: HmacSha1): Buffer {
    const out = this.scratch;
    // MESSAGE-INTEGRITY covers the header with a length that already counts it (RFC 8489 14.5)
    out.writeUInt16BE(length - HEADER + 4 + INTEGRITY_BYTES, 2);
    key.sign(out, length, out, length + 4, INTEGRITY_BYTES, this.scratchView);
    out.writeUInt16BE(ATTR_MESSAGE_INTEGRITY, length);
    out.writeUInt16BE(INTEGRITY_BYTES, length + 2);
    const withIntegrity = length + 4 + INTEGRITY_BYTES;
    out.writeUInt16BE(withIntegrity - HEADER + 8, 2);
    const fingerprint = (crc32(out.subarray(0, withIntegrity)) ^ FINGERPRINT_XOR) >>> 0;
    out.writeUInt16BE(ATTR_FINGERPRINT, withIntegrity);
    out.writeUInt16BE(4, withIntegrity + 2);
    out.writeUInt32BE(fingerprint, withIntegrity + 4);
    return Buffer.from(out.subarray(0, withIntegrity + 8));
  }

  private isOurUsername(data: Buffer, at: number): boolean {
    if (at < 0) return false;
    const len = data.readUInt16BE(at + 2);
    const ufrag = this.localUfrag;
    // USERNAME is "recipient:sender": ours, then a colon
    if (len <= ufrag.length || data[at + 4 + ufrag.length] !== 0x3a) return false;
    return data.compare(ufrag, 0, ufrag.length, at + 4, at + 4 + ufrag.length) === 0;
  }

  private isPending(data: Buffer): boolean {
    const p = this.pending!;
    return (
      data.readInt32BE(8) === p[0] && data.readInt32BE(12) === p[1] && data.readInt32BE(16) === p[2]
    );
  }

  /** MESSAGE-INTEGRITY at `at` matches HMAC-SHA1(key) of what precedes it. */
  private verify(data: Buffer, at: number, key: HmacSha1): boolean {
    if (at < 0 || data.readUInt16BE(at + 2) !== INTEGRITY_BYTES) return false;
    const out = this.scratch;
    data.copy(out, 0, 0, at);
    out.writeUInt16BE(at - HEADER + 4 + INTEGRITY_BYTES, 2);
    key.sign(out, at, this.tag, 0, INTEGRITY_BYTES, this.scratchView);
    return data.compare(this.tag, 0, INTEGRITY_BYTES, at + 4, at + 4 + INTEGRITY_BYTES) === 0;
  }
}

/** Offsets of the attributes the consent path reads (-1: absent); null for a malformed message. */
function scan(
  data: Buffer,
  conflicting: number,
): { username: number; integrity: number; conflict: boolean } | null {
  const end = HEADER + data.readUInt16BE(2);
  let username = -1;
  let integrity = -1;
  let conflict = false;
  for (let at = HEADER; at < end;) {
    if (at + 4 > end) return null;
    const type = data.readUInt16BE(at);
    const len = data.readUInt16BE(at + 2);
    if (at + 4 + len > end) return null;
    if (type === ATTR_MESSAGE_INTEGRITY) {
      integrity = at;
      // only FINGERPRINT may follow MESSAGE-INTEGRITY
      break;
    }
    if (type === ATTR_USERNAME) username = at;
    else if (type === conflicting) conflict = true;
    at += 4 + ((len + 3) & ~3);
  }
  return { username, integrity, conflict };
}

/** Binding request header and USERNAME, ICE-CONTROLLED or -CONTROLLING, PRIORITY (RFC 8445 7.1.1). */
function buildRequestTemplate(c: ConsentCredentials): Buffer {
  const user = Buffer.from(`${c.remoteUsername}:${c.localUsername}`, 'utf8');
  const userPadded = (user.length + 3) & ~3;
  const size = HEADER + 4 + userPadded + 12 + 8;
  const b = Buffer.alloc(size);
  b.writeUInt16BE(BINDING_REQUEST, 0);
  b.writeUInt32BE(MAGIC_COOKIE, 4);
  let at = HEADER;
  b.writeUInt16BE(ATTR_USERNAME, at);
  b.writeUInt16BE(user.length, at + 2);
  user.copy(b, at + 4);
  at += 4 + userPadded;
  b.writeUInt16BE(c.iceControlling ? ATTR_ICE_CONTROLLING : ATTR_ICE_CONTROLLED, at);
  b.writeUInt16BE(8, at + 2);
  b.writeBigUInt64BE(BigInt.asUintN(64, c.tieBreaker), at + 4);
  at += 12;
  b.writeUInt16BE(ATTR_PRIORITY, at);
  b.writeUInt16BE(4, at + 2);
  b.writeUInt32BE(c.priority >>> 0, at + 4);
  return b;
}

/** Binding success header and the XOR-MAPPED-ADDRESS of the peer's (IPv4) address. */
function buildSuccessTemplate([host, port]: readonly [string, number]): Buffer {
  const b = Buffer.alloc(HEADER + 12);
  b.writeUInt16BE(BINDING_SUCCESS, 0);
  b.writeUInt32BE(MAGIC_COOKIE, 4);
  b.writeUInt16BE(ATTR_XOR_MAPPED_ADDRESS, HEADER);
  b.writeUInt16BE(8, HEADER + 2);
  b[HEADER + 5] = 0x01; // IPv4
  b.writeUInt16BE(port ^ (MAGIC_COOKIE >>> 16), HEADER + 6);
  const ip = host.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  b.writeUInt32BE((ip ^ MAGIC_COOKIE) >>> 0, HEADER + 8);
  return b;
}

const jitter = (ms: number) => ms * (0.8 + 0.4 * Math.random());
