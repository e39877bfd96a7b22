import {
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Connection, RTCDtlsTransport } from 'werift';

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
}

/**
 * werift's DTLS does its X25519 key exchange (the curve Chromium, Firefox and werift offer first) with
 * tweetnacl in JavaScript: ~1.5 ms of a shard's thread per handshake, twice (key pair and shared
 * secret), while that thread also forwards every listener's audio. node:crypto does the same in
 * ~0.05 ms. Both functions keep tweetnacl's contract (32-byte arrays; werift reads `.buffer`, so each
 * result owns its whole ArrayBuffer).
 */
function patchX25519(): void {
  const require = createRequire(weriftEntry());
  const nacl = require('tweetnacl') as Partial<Nacl>;
  if (typeof nacl.scalarMult !== 'function' || typeof nacl.box?.keyPair !== 'function') {
    throw new Error('werift changed: tweetnacl scalarMult / box.keyPair are gone');
  }
  nacl.box.keyPair = () => {
    const { privateKey, publicKey } = generateKeyPairSync('x25519');
    return { secretKey: rawPrivate(privateKey), publicKey: rawPublic(publicKey) };
  };
  nacl.scalarMult = (secret: Uint8Array, peer: Uint8Array) => {
    const shared = diffieHellman({
      privateKey: createPrivateKey({
        key: Buffer.concat([PKCS8_X25519, secret]),
        format: 'der',
        type: 'pkcs8',
      }),
      publicKey: createPublicKey({
        key: Buffer.concat([SPKI_X25519, peer]),
        format: 'der',
        type: 'spki',
      }),
    });
    return new Uint8Array(shared);
  };
}

/** DER prefixes of an X25519 key (RFC 8410): the raw 32 bytes follow. */
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');

function rawPrivate(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }).subarray(-32));
}
function rawPublic(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ format: 'der', type: 'spki' }).subarray(-32));
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
