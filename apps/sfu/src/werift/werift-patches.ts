import {
  createPrivateKey,
  createPublicKey,
  createSign,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CipherContext, Connection, RTCCertificate, RTCDtlsTransport } from 'werift';

/**
 * werift 0.24's ICE `Connection` falls back to stun.l.google.com:19302 when no STUN server is configured,
 * even with `iceServers: []`: every peer then resolves that name and queries Google while gathering, and
 * gathering (which the SDP answer waits for) waits up to 5 s for it. Offline, concurrent joins queued
 * their failing lookups on libuv's 4 threads and many took 5.2 s to first audio; online, each join made
 * a request to a third party. Here a peer only gathers server-reflexive candidates from a STUN server
 * that was actually given (via `iceServers`).
 */
let applied = false;

export function applyWeriftPatches(): void {
  if (applied) return;
  applied = true;
  const proto = Connection.prototype as unknown as {
    getCandidatePromises?: (this: PatchedConnection, ...args: unknown[]) => unknown;
  };
  const original = proto.getCandidatePromises;
  if (typeof original !== 'function') {
    throw new Error(
      'werift changed: Connection.getCandidatePromises is gone (see werift-patches.ts)',
    );
  }
  proto.getCandidatePromises = function (this: PatchedConnection, ...args: unknown[]) {
    if (!this.options?.stunServer) this.stunServer = undefined;
    return original.apply(this, args);
  };
  patchCloseNotify();
  patchX25519();
  patchCertificateParsing();
  patchFingerprints();
}

/**
 * werift's DTLS does its X25519 key exchange (the curve Chromium, Firefox and werift offer first) with
 * tweetnacl in JavaScript: ~1.5 ms of a shard's thread per handshake, twice (key pair and shared
 * secret), while that thread also forwards every listener's audio. node:crypto does the same in
 * ~0.1 ms. Both functions keep tweetnacl's contract (32-byte arrays; werift reads `.buffer`, so each
 * result owns its whole ArrayBuffer). Keys cross as JWK: OpenSSL 3 decodes DER keys ~10× slower.
 */
function patchX25519(): void {
  const require = createRequire(weriftEntry());
  const nacl = require('tweetnacl') as Partial<Nacl>;
  if (typeof nacl.scalarMult !== 'function' || typeof nacl.box?.keyPair !== 'function') {
    throw new Error('werift changed: tweetnacl scalarMult / box.keyPair are gone');
  }
  // the private KeyObject of each secret handed out, so the exchange does not decode it again
  const privateKeys = new WeakMap<ArrayBufferLike, KeyObject>();
  nacl.box.keyPair = () => {
    const { privateKey } = generateKeyPairSync('x25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const secretKey = new Uint8Array(Buffer.from(jwk.d!, 'base64url'));
    privateKeys.set(secretKey.buffer, privateKey);
    return { secretKey, publicKey: new Uint8Array(Buffer.from(jwk.x!, 'base64url')) };
  };
  nacl.scalarMult = (secret: Uint8Array, peer: Uint8Array) => {
    const privateKey =
      privateKeys.get(secret.buffer) ??
      createPrivateKey({
        key: Buffer.concat([PKCS8_X25519, secret]),
        format: 'der',
        type: 'pkcs8',
      });
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(peer).toString('base64url') },
      format: 'jwk',
    });
    return new Uint8Array(diffieHellman({ privateKey, publicKey }));
  };
}

/** DER prefix of an X25519 private key (RFC 8410): the raw 32 bytes follow. */
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');

/**
 * werift parses its certificate and key from PEM for every handshake, and signs each CertificateVerify
 * with `createSign().sign(pemString)`, so OpenSSL parses the key again (~0.45 ms). The certificate is
 * the same for every peer of the process: both are parsed once (~0.03 ms a signature).
 */
function patchCertificateParsing(): void {
  const proto = CipherContext.prototype as unknown as {
    signatureData?: (this: { keyPem?: string }, data: Buffer, hash: string) => Buffer;
    parseX509?: (this: ParsedX509, certPem: string, keyPem: string, hash: unknown) => void;
  };
  const parse = proto.parseX509;
  if (typeof proto.signatureData !== 'function' || typeof parse !== 'function') {
    throw new Error('werift changed: CipherContext.signatureData / parseX509 are gone');
  }
  const keys = new Map<string, KeyObject>();
  const keyOf = (pem: string) => {
    let key = keys.get(pem);
    if (!key) {
      key = createPrivateKey(pem);
      keys.set(pem, key);
    }
    return key;
  };
  const parsed = new Map<string, ParsedX509>();
  proto.parseX509 = function (certPem: string, keyPem: string, hash: unknown) {
    const id = `${certPem}\n${keyPem}`;
    let p = parsed.get(id);
    if (!p) {
      p = {} as ParsedX509;
      parse.call(p, certPem, keyPem, hash);
      // the server's ServerKeyExchange is signed through @fidm/x509, which passes PEM too
      const sec = p.localPrivateKey;
      if (!sec.constructor._signers?.[sec.oid]) {
        const key = keyOf(keyPem);
        sec.sign = (data, alg) => createSign(alg).update(data).sign(key);
      }
      parsed.set(id, p);
    }
    this.localCert = p.localCert;
    this.localPrivateKey = p.localPrivateKey;
    this.signatureHashAlgorithm = hash;
  };
  proto.signatureData = function (data: Buffer, hash: string) {
    if (!this.keyPem) throw new Error('DTLS: no private key to sign with');
    return createSign(hash).update(data).sign(keyOf(this.keyPem));
  };
}

/**
 * werift computes its certificate's fingerprint by parsing the certificate's PEM again each time it
 * builds DTLS parameters, about 4 times per answer (~45 µs each: ~2 % of a shard's thread while
 * listeners join). A certificate does not change: each one's fingerprints are computed once.
 */
function patchFingerprints(): void {
  const proto = RTCCertificate.prototype as unknown as {
    getFingerprints?: (this: object) => unknown[];
  };
  const original = proto.getFingerprints;
  if (typeof original !== 'function') {
    throw new Error('werift changed: RTCCertificate.getFingerprints is gone');
  }
  const computed = new WeakMap<object, unknown[]>();
  proto.getFingerprints = function (this: object) {
    let list = computed.get(this);
    if (!list) {
      list = original.call(this);
      computed.set(this, list);
    }
    return [...list];
  };
}

interface ParsedX509 {
  localCert: unknown;
  /** @fidm/x509's PrivateKey (Ed25519/Ed448 keys sign through `_signers`). */
  localPrivateKey: {
    oid: string;
    constructor: { _signers?: Record<string, unknown> };
    sign: (data: Buffer, hashAlgorithm: string) => Buffer;
  };
  signatureHashAlgorithm: unknown;
}

interface Nacl {
  scalarMult: (n: Uint8Array, p: Uint8Array) => Uint8Array;
  box: { keyPair: () => { publicKey: Uint8Array; secretKey: Uint8Array } };
}

/** tweetnacl as werift resolves it (werift's own dependency, not ours). */
function weriftEntry(): string {
  return createRequire(import.meta.url).resolve('werift');
}

/**
 * werift 0.24 closes a DTLS transport without telling the other end ("todo impl send alert"), so a
 * peer whose session the server ends hears nothing until its ICE consent check gives up (~30 s).
 * Here `stop()` first sends the DTLS close_notify alert (RFC 6347 / TLS 1.2 §7.2.1), as browsers do:
 * the remote DTLS transport turns `closed` at once and its client can rejoin.
 */
function patchCloseNotify(): void {
  const proto = RTCDtlsTransport.prototype as unknown as {
    stop?: (this: PatchedDtlsTransport) => Promise<void>;
  };
  const original = proto.stop;
  // werift's record builder is internal (not in its package exports): reach it by file.
  const require = createRequire(import.meta.url);
  const builder = require(
    join(dirname(require.resolve('werift')), '../../dtls/src/record/builder.js'),
  ) as { createPlaintext?: CreatePlaintext };
  const createPlaintext = builder.createPlaintext;
  if (typeof original !== 'function' || typeof createPlaintext !== 'function') {
    throw new Error('werift changed: RTCDtlsTransport.stop or createPlaintext is gone');
  }
  proto.stop = async function (this: PatchedDtlsTransport) {
    const socket = this.dtls;
    if (this.state === 'connected' && socket) {
      try {
        const record = createPlaintext(socket.dtls)(
          [{ type: ALERT, fragment: CLOSE_NOTIFY }],
          ++socket.dtls.recordSequenceNumber,
        )[0];
        await socket.transport.send(socket.cipher.encryptPacket(record).serialize());
      } catch {
        // the transport is going away anyway
      }
    }
    return original.call(this);
  };
}

/** DTLS record content type `alert`; alert level warning (1), description close_notify (0). */
const ALERT = 21;
const CLOSE_NOTIFY = Buffer.from([1, 0]);

type CreatePlaintext = (
  dtls: unknown,
) => (fragments: { type: number; fragment: Buffer }[], sequenceNumber: number) => unknown[];

interface PatchedDtlsTransport {
  state: string;
  dtls?: {
    dtls: { recordSequenceNumber: number };
    cipher: { encryptPacket(record: unknown): { serialize(): Buffer } };
    transport: { send(buf: Buffer): Promise<void> };
  };
}

interface PatchedConnection {
  options?: { stunServer?: unknown };
  stunServer?: unknown;
}

applyWeriftPatches();
