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
