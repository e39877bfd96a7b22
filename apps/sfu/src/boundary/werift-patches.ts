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
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CipherContext,
  Connection,
  DtlsClient,
  DtlsServer,
  DtlsSocket,
  RTCCertificate,
  RTCDtlsTransport,
  classes,
  Message,
  methods,
  StunProtocol,
  TurnProtocol,
} from 'werift';

/**
 * werift 0.24's ICE `Connection` falls back to stun.l.google.com:19302 when no STUN server is configured,
 * even with `iceServers: []`: every peer then resolves that name and queries Google while gathering, and
 * gathering (which the SDP answer waits for) waits up to 5 s for it. Offline, concurrent joins queued
 * their failing lookups on libuv's 4 threads and many took 5.2 s to first audio; online, each join made
 * a request to a third party. Here a peer only gathers server-reflexive candidates from a STUN server
 * that was actually given (via `iceServers`).
 */
let applied = false;

/** Whether this process runs werift with the patches below (the boundary applies them on import). */
export function weriftPatchesApplied(): boolean {
  return applied;
}

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
  patchDtlsHandshakeUnderLoss();
  patchIceCheckRetransmission();
  patchTurnRefresh();
}

/**
 * werift 0.24's TURN client refreshes its allocation in a loop that sleeps 5/6 of the lifetime (500 s
 * for coturn's 600 s) on a `timers/promises` timeout nothing cancels: close() ends the loop only when
 * that sleep is over, so a closed client kept its process alive for up to 8 minutes (a Jest run that
 * had used one did not exit). Here the same loop (REFRESH at 5/6 of the lifetime the server last
 * answered, a failed refresh tried again a round later, as werift does) sleeps on a timeout that
 * close() (`refreshHandle.resolve`) aborts. For werift's sources: docs/upstream/werift-turn-refresh-close.diff.
 */
type PatchedTurn = {
  refresh: (lifetimeSeconds: number) => void;
  refreshHandle?: { resolve?: () => void };
  server: readonly [string, number];
  requestWithRetry(request: Message, addr: readonly [string, number]): Promise<[Message, unknown]>;
};

function patchTurnRefresh(): void {
  const proto = TurnProtocol.prototype as unknown as {
    connectionMade?: (this: PatchedTurn, ...args: unknown[]) => Promise<void>;
  };
  const connectionMade = proto.connectionMade;
  if (typeof connectionMade !== 'function')
    throw new Error('werift changed: TurnProtocol.connectionMade is gone');
  proto.connectionMade = function (this: PatchedTurn, ...args: unknown[]) {
    // werift defines `refresh` on each instance (a class field) and calls it once allocated
    this.refresh = (lifetimeSeconds: number) => {
      const stop = new AbortController();
      this.refreshHandle = { resolve: () => stop.abort() };
      let lifetime = lifetimeSeconds;
      const loop = async () => {
        for (;;) {
          await sleep((5 / 6) * lifetime * 1000, undefined, { signal: stop.signal });
          const request = new Message(methods.REFRESH, classes.REQUEST);
          request.setAttribute('LIFETIME', lifetime);
          try {
            const [answer] = await this.requestWithRetry(request, this.server);
            lifetime = answer.getAttributeValue('LIFETIME') as number;
          } catch {
            // the next round tries again (werift logs and goes on)
          }
        }
      };
      loop().catch(() => undefined); // closed: the sleep was aborted
    };
    return connectionMade.apply(this, args);
  };
}

/**
 * ICE connectivity checks (RFC 8445 §7.2.5: STUN transactions, over UDP retransmitted as RFC 5389
 * §7.2.1 says: RTO doubling after each request, Rc = 7 requests) where werift asks for them with a
 * retransmission count (its checks and its nominating request pass 4): 7 requests from an RTO of
 * CHECK_RTO_MS, at 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3 s, the check failing at 12.7 s (the SFU gives a
 * join 10 s). werift 0.24 sends 5 from an RTO of 50 ms (RETRY_RTO), so a check failed 1.55 s after it
 * began whatever the link: a pair whose answers came later (a peer still waiting for its SDP answer, a
 * starved event loop, a 300 ms link that lost two answers) was failed for good, and with it the join.
 * The RTO stays below RFC 5389's 500 ms so that one lost check costs a fast link 0.1 s, not 0.5 s
 * (RFC 8445 §14.3 paces checks by Ta = 50 ms). Transactions given as options (werift's RTT-based
 * consent checks) and TCP's (no retransmission, RFC 6544) go as werift sends them.
 * For werift's sources: docs/upstream/werift-ice-check-retransmission.diff.
 */
export const CHECK_RTO_MS = 100;
export const CHECK_REQUESTS = 7;
/**
 * RFC 7675 consent checks, which werift sends every 4–6 s as a single request (`retransmissions: 0`,
 * waiting max(500 ms, 2 RTT + 200 ms)) and which expire the connection after 30 s without an answer:
 * retransmitted twice more with the same backoff (at 1× and 3× that wait, given up at 7×; werift
 * aborts a transaction still open when the next check starts). One lost request or answer no longer
 * costs a whole interval, and an answer that comes late (a lossy link, a busy peer) still counts.
 * Broadcasters on a lossy link under load lost consent for 30 s and failed ("connection failed",
 * bench:net). The listener shard answers and sends its listeners' consent checks itself
 * (listener-consent.ts): this is werift's path, the CLI's peers and the SFU's publishers.
 */
export const CONSENT_RETRANSMISSIONS = 2;

type StunRequest = (
  this: StunProtocol,
  msg: unknown,
  addr: unknown,
  key?: Buffer,
  retransmissions?:
    | number
    | {
        retransmissions?: number;
        responseTimeout?: number;
        onRequestSent?: (attempt: number) => void;
      },
  onRequestSent?: (attempt: number) => void,
) => Promise<unknown>;

function patchIceCheckRetransmission(): void {
  const proto = StunProtocol.prototype as unknown as { request?: StunRequest };
  const request = proto.request;
  if (typeof request !== 'function')
    throw new Error('werift changed: StunProtocol.request is gone');
  proto.request = function (this: StunProtocol, msg, addr, key, retransmissions, onRequestSent) {
    const check = typeof retransmissions === 'number' && retransmissions > 0;
    const consent =
      typeof retransmissions === 'object' &&
      retransmissions.retransmissions === 0 &&
      retransmissions.responseTimeout !== undefined;
    return request.call(
      this,
      msg,
      addr,
      key,
      check
        ? // (werift reads onRequestSent from the options when it is given them)
          { retransmissions: CHECK_REQUESTS - 1, responseTimeout: CHECK_RTO_MS, onRequestSent }
        : consent
          ? { ...retransmissions, retransmissions: CONSENT_RETRANSMISSIONS }
          : retransmissions,
      onRequestSent,
    );
  };
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

/**
 * werift 0.24's DTLS handshake breaks for good when a datagram of it is lost, duplicated or late, all
 * of which a lossy link does (bench:net at 150 ms RTT + 3 % loss: 1 join in 3 failed, each cause below
 * seen in werift's own error log). Each handshake message is handled the moment it arrives, and any
 * error a handler throws fails the DTLS transport, so the retransmissions that RFC 6347 §4.2.4 relies
 * on never get the chance to repair anything:
 *  - client (the SFU's side with every listener: werift answers `setup:active`): a second
 *    HelloVerifyRequest (the answer to a retransmitted ClientHello) throws in Flight3 ("Error");
 *    one arriving later restarts the handshake over the one in progress;
 *  - client: a ServerHelloDone whose Certificate or ServerKeyExchange was lost waits 4.5 s
 *    ("waitForReady timeout") and fails; one whose CertificateRequest was lost makes the client
 *    answer without its certificate;
 *  - server (werift listeners and publishers, the CLI): a CertificateVerify whose Certificate was lost
 *    throws ("client certificate missing before certificate verify");
 *  - server: a ClientKeyExchange handled after a CertificateVerify (its first copy was lost, or it is
 *    a retransmission) derives the extended master secret over a transcript that includes the
 *    CertificateVerify, so no Finished ever decrypts ("unable to authenticate data") and the client
 *    retransmits until it gives up;
 *  - server: a late copy of a ClientHello (flight 1 or 3) after the handshake moved on regenerates the
 *    server's random and key pair, or renegotiates a session that just connected.
 * Here every DTLS socket's handshake messages pass a gate first (a sequencer keyed by the handshake's
 * context, so a renegotiation starts afresh): stale copies of flights already answered are dropped,
 * and a flight is handed to werift only once it is complete, in the order TLS defines (client:
 * ServerHello … ServerHelloDone with no message_seq missing; server: Certificate, ClientKeyExchange,
 * CertificateVerify, each once). What is dropped comes again with the peer's next retransmission of
 * the flight, which werift answers by retransmitting its last flight. A patch for werift's own
 * sources, to send upstream: docs/upstream/werift-dtls-handshake-under-loss.diff.
 */
function patchDtlsHandshakeUnderLoss(): void {
  const proto = DtlsSocket.prototype as unknown as {
    setupExtensions?: (this: GatedDtlsSocket) => void;
  };
  const setup = proto.setupExtensions;
  if (typeof setup !== 'function' || typeof DtlsServer !== 'function') {
    throw new Error('werift changed: DtlsSocket.setupExtensions or DtlsServer is gone');
  }
  // setupExtensions runs inside DtlsSocket's constructor, before the subclass assigns its handler
  proto.setupExtensions = function (this: GatedDtlsSocket) {
    setup.call(this);
    let gated: HandshakeHandler | undefined;
    Object.defineProperty(this, 'onHandleHandshakes', {
      configurable: true,
      enumerable: true,
      get: () => gated,
      set: (handler: HandshakeHandler | undefined) => {
        gated = handler && ((assembled) => handler(gateHandshakes(this, assembled)));
      },
    });
  };
}

/** Handshake message types (RFC 5246 §7.4, RFC 6347 §4.2.1). */
const HS = {
  clientHello: 1,
  serverHello: 2,
  helloVerifyRequest: 3,
  certificate: 11,
  serverKeyExchange: 12,
  certificateRequest: 13,
  serverHelloDone: 14,
  certificateVerify: 15,
  clientKeyExchange: 16,
} as const;

interface HandshakeMessage {
  msg_type: number;
  message_seq: number;
  fragment: Buffer;
}
type HandshakeHandler = (assembled: HandshakeMessage[]) => Promise<void>;

interface GatedDtlsSocket {
  connected: boolean;
  options: { certificateRequest?: boolean };
  dtls: { flight: number; cookie?: Buffer };
  onHandleHandshakes?: HandshakeHandler;
}

/** What one handshake's gate holds: flight 4 messages by message_seq (client), flight 5 messages (server). */
interface GateState {
  flight4: Map<number, HandshakeMessage>;
  flight4Done?: boolean;
  flight5: Map<number, HandshakeMessage>;
  flight5Done: boolean;
  /** The random of the ClientHellos of this handshake (server). */
  helloRandom?: Buffer;
}
const gates = new WeakMap<object, GateState>();

/** The messages of `assembled` werift may handle now, in the order it must handle them. */
export function gateHandshakes(
  socket: GatedDtlsSocket,
  assembled: HandshakeMessage[],
): HandshakeMessage[] {
  let st = gates.get(socket.dtls);
  if (!st) {
    st = { flight4: new Map(), flight5: new Map(), flight5Done: false };
    gates.set(socket.dtls, st);
  }
  const server = socket instanceof DtlsServer;
  const out: HandshakeMessage[] = [];
  for (const h of assembled) {
    if (server) gateServer(socket, st, h, out);
    else if (socket instanceof DtlsClient) gateClient(socket, st, h, out);
    else out.push(h);
  }
  return out;
}

function gateClient(
  socket: GatedDtlsSocket,
  st: GateState,
  h: HandshakeMessage,
  out: HandshakeMessage[],
): void {
  const flight = socket.dtls.flight;
  switch (h.msg_type) {
    case HS.helloVerifyRequest:
      // only the answer to flight 1 is news; later copies answer ClientHellos already superseded
      if (flight === 1) out.push(h);
      return;
    case HS.serverHello:
    case HS.certificate:
    case HS.serverKeyExchange:
    case HS.certificateRequest: {
      // flight 5 is out: werift re-running these handlers would only regenerate its key pair.
      // Held until the flight is complete: werift handles a message that came before the
      // ServerHello by polling for it, and its ServerHelloDone handler does not wait for the
      // CertificateRequest, so a flight handed over piecemeal could send flight 5 without the
      // certificate the server asked for, which the server then waits for forever
      if (flight >= 5 || socket.connected) return;
      if (!st.flight4.has(h.message_seq)) st.flight4.set(h.message_seq, h);
      return;
    }
    case HS.serverHelloDone: {
      // a repeat once flight 5 is out makes werift retransmit flight 5, as it should
      if (flight < 5 && !socket.connected) {
        // handed over already, werift still at it: it sends flight 5 once done
        if (st.flight4Done) return;
        const held = [...st.flight4.values()].sort((a, b) => a.message_seq - b.message_seq);
        const hello = held.find((m) => m.msg_type === HS.serverHello);
        if (!hello) return;
        for (let seq = hello.message_seq + 1; seq < h.message_seq; seq++) {
          if (!st.flight4.has(seq)) return;
        }
        // the whole flight, once, in order (later copies find it handed over: flight >= 5)
        out.push(...held.filter((m) => m.message_seq >= hello.message_seq));
        st.flight4Done = true;
      }
      out.push(h);
      return;
    }
    default:
      out.push(h);
  }
}

function gateServer(
  socket: GatedDtlsSocket,
  st: GateState,
  h: HandshakeMessage,
  out: HandshakeMessage[],
): void {
  const flight = socket.dtls.flight;
  switch (h.msg_type) {
    case HS.clientHello: {
      // a copy of a ClientHello already answered (same random): flight 1 once flight 2 is out,
      // flight 3 once flight 5 has come; either after the handshake is done. A new random is a
      // new handshake (werift renegotiates).
      const random = h.fragment.subarray(2, 34);
      if (st.helloRandom?.equals(random)) {
        const cookie = clientHelloCookie(h.fragment);
        const answered = cookie && cookie.length > 0 ? flight > 4 : flight >= 4;
        if (socket.connected || answered) return;
      }
      st.helloRandom = Buffer.from(random);
      out.push(h);
      return;
    }
    case HS.certificate:
    case HS.clientKeyExchange:
    case HS.certificateVerify: {
      if (st.flight5Done || socket.connected) return;
      if (!st.flight5.has(h.msg_type)) st.flight5.set(h.msg_type, h);
      const order = socket.options.certificateRequest
        ? [HS.certificate, HS.clientKeyExchange, HS.certificateVerify]
        : [HS.clientKeyExchange];
      if (order.some((type) => !st.flight5.has(type))) return;
      st.flight5Done = true;
      for (const type of order) out.push(st.flight5.get(type)!);
      st.flight5.clear();
      return;
    }
    default:
      out.push(h);
  }
}

/** The cookie of a DTLS ClientHello body (RFC 6347 §4.2.1), or null when it is malformed. */
function clientHelloCookie(body: Buffer): Buffer | null {
  // client_version (2), random (32), session_id <0..32>, cookie <0..255>
  const sessionIdLength = body[34];
  if (sessionIdLength === undefined) return null;
  const at = 35 + sessionIdLength;
  const cookieLength = body[at];
  if (cookieLength === undefined || body.length < at + 1 + cookieLength) return null;
  return body.subarray(at + 1, at + 1 + cookieLength);
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
