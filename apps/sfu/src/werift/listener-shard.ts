import type { Socket } from 'node:dgram';
import {
  candidatePriority,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
} from '../boundary/werift.js';
import { MuxUdpProtocol, type IceMux, type IceMuxStats } from '../boundary/ice-mux.js';
import { PacketCache } from '../nack.js';
import { validateOffer } from '../sdp.js';
import { threadCpuSeconds } from './capacity.js';
import { Gate } from './gate.js';
import { ListenerConsent, type ConsentCredentials } from './listener-consent.js';
import { negotiateAnswer } from './negotiate.js';
import { datagramOut, type DatagramOut } from '../boundary/datagram-out.js';
import { handshakeStep, iceConnectionOf } from '../boundary/internals.js';
import { extractSrtpKeys, OutgoingRtp, SrtpStreamSender } from '../boundary/srtp-sender.js';
import { createPeer, type PeerSettings } from './werift-config.js';

export interface ShardConfig {
  index: number;
  settings: PeerSettings;
  listenerTimeoutMs: number;
  /** The node's one UDP (and TCP) port: this shard's ufrags start with `tag` (see boundary/ice-mux.ts). */
  mux?: { tag: string; udpPort: number; tcpPort?: number };
}

export interface ShardStats {
  listeners: number;
  pending: number;
  packetsOut: number;
  bytesOut: number;
  sendErrors: number;
  packetsIn: number;
  /** packets sent again because a listener NACKed them */
  retransmits: number;
  /** connected listeners per SRTP profile */
  gcm: number;
  cm: number;
  /** Listener handshakes started so far. */
  handshakes: number;
  /** CPU time this shard's thread has used so far (null where the OS does not say). */
  cpuSeconds: number | null;
  /** This thread's share of the node's one port (sessions, connected sockets, drops). */
  mux?: IceMuxStats;
  /** Consent checks answered, and consents renewed by answers to ours (listener-consent.ts). */
  consent: { answered: number; granted: number };
}

/** Events a shard reports to the engine (same shape in-thread and across worker_threads). */
export type ShardEvent =
  | { t: 'count'; stationId: string; count: number }
  | { t: 'gone'; stationId: string; sessionId: string; reason: string }
  | { t: 'stats'; stats: ShardStats };

/** Minimal view of werift's ICE pair / connection internals used for the direct send path. */
interface IcePair {
  localCandidate: { type: string };
  remoteCandidate: { host: string; port: number };
  protocol: { transport?: { type?: string; socket?: Socket } };
  packetsReceived: number;
  requestsReceived: number;
  responsesReceived: number;
}
/** werift's ICE Connection as the shard reads it (its credentials are the consent path's). */
interface IceConnection extends Omit<ConsentCredentials, 'priority'> {
  nominated?: IcePair;
  /** Every candidate pair: a peer may keep sending its consent checks on a pair other than ours. */
  checkList?: IcePair[];
  state: string;
  consentFresh: boolean;
  iceLite?: boolean;
  send(data: Buffer): Promise<void>;
  /** Ends werift's own consent checks (RFC 7675); the shard's ListenerConsent takes over. */
  stopConsentLifecycle?: () => void;
}

/** The PRIORITY of our consent checks: a peer-reflexive UDP candidate's (RFC 8445 7.1.1). */
const CHECK_PRIORITY = candidatePriority('prflx', { transport: 'udp' });

/** What the peer has sent so far, on any candidate pair (STUN requests and answers, RTCP). */
function activity(ice: IceConnection | null): number {
  const pairs = ice?.checkList ?? (ice?.nominated ? [ice.nominated] : []);
  let n = 0;
  for (const p of pairs) n += p.packetsReceived + p.requestsReceived + p.responsesReceived;
  return pairs.length ? n : -1;
}

/**
 * Listener handshakes (ICE, then DTLS) a shard runs at once; further joins wait for a slot before
 * their answer, so a crowd arriving together never starves the forwarding. A handshake costs the
 * shard ~1.3 ms of CPU but ~0.3–1 s of waiting on the peer, so slots, not CPU, set the join rate:
 * on one pinned core, 32 slots joined 1,000 listeners at ~110/s and the 1,000 → 1,500 ramp at ~70/s
 * with none stuck (16: 40–60/s).
 */
export const HANDSHAKES_AT_ONCE = 32;
/** A handshake that has not finished by then gives its slot to the next join (it may still finish). */
const HANDSHAKE_SLOT_MS = 3000;
/**
 * How long a listener that has not connected yet is kept: as long as WHEP clients wait for the
 * connection (the CLI 15 s), whatever listenerTimeoutMs says of connected ones. On a lossy link under
 * load a handshake can need 10 s (checks and DTLS flights lost, backing off); removing it at 10 s
 * failed joins whose client was still retransmitting.
 */
const JOIN_WINDOW_MS = 15000;

class Listener {
  connected = false;
  /** Frees this listener's handshake slot. */
  handshakeDone: () => void = () => undefined;
  removed = false;
  /**
   * The fan-out may send to it: connected, its ICE neither failed nor closed, consent fresh (checked
   * with its presence, not per packet).
   */
  sendable = false;
  sender: SrtpStreamSender | null = null;
  ice: IceConnection | null = null;
  pair: IcePair | null = null;
  socket: Socket | null = null;
  /** The fan-out's path to the selected pair (set with the pair). */
  out: DatagramOut | null = null;
  host = '';
  /** The selected pair's remote port (`port` is 0 on the mux's connected socket). */
  remotePort = 0;
  /** Consent checks on the mux's selected pair, answered and sent by the shard (null: werift's). */
  consent: ListenerConsent | null = null;
  lastActivity = Date.now();
  activity = -1;
  readonly createdAt = Date.now();
  constructor(
    readonly sessionId: string,
    readonly stationId: string,
    readonly pc: RTCPeerConnection,
    readonly transceiver: RTCRtpTransceiver,
  ) {}
}

/**
 * Holds the listener PeerConnections of one shard (one worker thread, or the engine's own thread) and
 * fans a station's packets out to them.
 */
/** One station's listeners on a shard: every session by id, and the connected ones in fan-out order. */
class StationListeners {
  readonly all = new Map<string, Listener>();
  readonly connected: Listener[] = [];
}

export class ListenerShard {
  private readonly stations = new Map<string, StationListeners>();
  /** Recent packets per station, to answer listeners' NACKs (5 s of 20 ms frames). */
  private readonly caches = new Map<string, PacketCache<OutgoingRtp>>();
  private retransmits = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly statsTimer: NodeJS.Timeout;
  private packetsOut = 0;
  private bytesOut = 0;
  private sendErrors = 0;
  private packetsIn = 0;
  private closed = false;
  private readonly handshakes = new Gate(HANDSHAKES_AT_ONCE);
  private handshakesStarted = 0;
  private readonly consent = { answered: 0, granted: 0 };

  constructor(
    private readonly cfg: ShardConfig,
    private readonly emit: (e: ShardEvent) => void,
    /** Sessions on the node's one port (the shard's thread's mux), or a socket per session. */
    private readonly mux?: IceMux,
  ) {
    const check = Math.min(500, Math.max(100, Math.floor(cfg.listenerTimeoutMs / 10)));
    this.timer = setInterval(() => this.checkPresence(), check);
    this.timer.unref();
    this.statsTimer = setInterval(() => this.emit({ t: 'stats', stats: this.stats() }), 1000);
    this.statsTimer.unref();
  }

  stats(): ShardStats {
    let listeners = 0;
    let pending = 0;
    let gcm = 0;
    for (const st of this.stations.values()) {
      for (const l of st.all.values()) {
        if (l.connected) {
          listeners++;
          if (l.sender?.profileName === 'AEAD_AES_128_GCM') gcm++;
        } else pending++;
      }
    }
    return {
      listeners,
      pending,
      packetsOut: this.packetsOut,
      bytesOut: this.bytesOut,
      sendErrors: this.sendErrors,
      packetsIn: this.packetsIn,
      retransmits: this.retransmits,
      gcm,
      cm: listeners - gcm,
      handshakes: this.handshakesStarted,
      cpuSeconds: threadCpuSeconds(),
      mux: this.mux?.stats(),
      consent: { ...this.consent },
    };
  }

  async addListener(stationId: string, sessionId: string, offerSdp: string): Promise<string> {
    if (this.closed) throw new Error('shard closed');
    const offer = validateOffer(offerSdp, 'listener');
    const done = await this.handshakes.enter();
    this.handshakesStarted++;
    const slot = setTimeout(done, HANDSHAKE_SLOT_MS);
    const free = () => {
      clearTimeout(slot);
      done();
    };
    let pc: RTCPeerConnection | undefined;
    let answer: string;
    let transceiver: RTCRtpTransceiver;
    try {
      if (this.closed) throw new Error('shard closed');
      pc = createPeer(this.cfg.settings);
      transceiver = pc.addTransceiver('audio', { direction: 'sendonly' });
      answer = await negotiateAnswer(pc, offer, {
        sessionId,
        direction: 'send',
        announcedAddress: this.cfg.settings.announcedAddress,
        attach: this.mux ? (p) => this.mux!.attach(p) : undefined,
      });
      if (this.closed) throw new Error('shard closed');
    } catch (err) {
      free();
      await pc?.close().catch(() => undefined);
      throw err;
    }
    const l = new Listener(sessionId, stationId, pc, transceiver);
    l.handshakeDone = free;
    let st = this.stations.get(stationId);
    if (!st) {
      st = new StationListeners();
      this.stations.set(stationId, st);
    }
    st.all.set(sessionId, l);
    pc.connectionStateChange.subscribe((state) => {
      if (l.removed) return;
      if (state === 'connected') this.onConnected(l);
      else if (state === 'failed') void this.remove(l, 'ice-failed');
      else if (state === 'closed') void this.remove(l, 'closed');
    });
    return answer;
  }

  private onConnected(l: Listener): void {
    if (l.connected) return;
    l.handshakeDone();
    const sender = l.transceiver.sender;
    const dtls = sender.dtlsTransport;
    const keys = extractSrtpKeys(dtls);
    const codec = sender.codec;
    if (!keys || !codec) {
      void this.remove(l, 'srtp-unsupported');
      return;
    }
    l.sender = new SrtpStreamSender(keys, sender.ssrc, codec.payloadType);
    l.ice = iceConnectionOf<IceConnection>(dtls);
    l.connected = true;
    l.sendable = true;
    l.lastActivity = Date.now();
    // werift's own retransmission cache is empty (we send around it): answer from the station's
    sender.onGenericNack.subscribe((nack) => this.retransmit(l, nack.lost));
    const st = this.stations.get(l.stationId)!;
    st.connected.push(l);
    this.emit({ t: 'count', stationId: l.stationId, count: st.connected.length });
  }

  /** Removes a listener; emits 'gone' unless the engine asked for it (reason 'deleted'). */
  private async remove(l: Listener, reason: string, notify = true): Promise<void> {
    if (l.removed) return;
    l.removed = true;
    l.handshakeDone();
    // a join that never connected: say which step of the handshake it stopped at
    if (!l.connected && notify && reason !== 'closed') {
      console.warn(`[sfu] listener did not connect (${reason}): ${handshakeStep(l.pc)}`);
    }
    l.sendable = false;
    const st = this.stations.get(l.stationId);
    st?.all.delete(l.sessionId);
    if (st && l.connected) {
      l.connected = false;
      st.connected.splice(st.connected.indexOf(l), 1);
      this.emit({ t: 'count', stationId: l.stationId, count: st.connected.length });
    }
    if (st && st.all.size === 0) {
      this.stations.delete(l.stationId);
      this.caches.delete(l.stationId);
    }
    if (notify) this.emit({ t: 'gone', stationId: l.stationId, sessionId: l.sessionId, reason });
    await l.pc.close().catch(() => undefined);
  }

  async removeListener(stationId: string, sessionId: string, reason = 'deleted'): Promise<boolean> {
    const l = this.stations.get(stationId)?.all.get(sessionId);
    if (!l) return false;
    await this.remove(l, reason, reason !== 'deleted');
    return true;
  }

  async closeStation(stationId: string, reason = 'station-closed'): Promise<void> {
    this.caches.delete(stationId);
    const st = this.stations.get(stationId);
    if (!st) return;
    await Promise.all([...st.all.values()].map((l) => this.remove(l, reason)));
  }

  /** Fan-out of one publisher packet (seq/timestamp already rewritten by the engine). */
  packet(
    stationId: string,
    seq: number,
    timestamp: number,
    marker: boolean,
    payload: Uint8Array,
  ): void {
    this.packetsIn++;
    const st = this.stations.get(stationId);
    if (!st) return;
    let cache = this.caches.get(stationId);
    if (!cache) {
      cache = new PacketCache();
      this.caches.set(stationId, cache);
    }
    const p = new OutgoingRtp(seq, timestamp, marker, payload);
    cache.put(p);
    const ready = st.connected;
    for (let i = 0; i < ready.length; i++) this.sendTo(ready[i]!, p);
  }

  /** Sends what a listener NACKed that the station's cache still holds. */
  private retransmit(l: Listener, lost: number[]): void {
    if (!l.connected || l.removed) return;
    const cache = this.caches.get(l.stationId);
    if (!cache) return;
    for (const seq of lost) {
      const p = cache.get(seq);
      if (p && this.sendTo(l, p)) this.retransmits++;
    }
  }

  private sendTo(l: Listener, p: OutgoingRtp): boolean {
    if (!l.sendable) return false;
    const pair = l.ice!.nominated;
    if (pair !== l.pair) {
      if (!pair) return false;
      this.bindPair(l, pair);
    }
    try {
      this.bytesOut += l.sender!.send(l.out!, p);
      this.packetsOut++;
      return true;
    } catch {
      this.sendErrors++;
      return false;
    }
  }

  private bindPair(l: Listener, pair: IcePair): void {
    l.pair = pair;
    const transport = pair.protocol.transport;
    if (pair.protocol instanceof MuxUdpProtocol) {
      // one port per node: the socket connected to this peer, sends carry no address
      const { host, port } = pair.remoteCandidate;
      l.socket = pair.protocol.socketTo([host, port]);
      l.host = host;
      l.remotePort = port;
      // not connected yet: werift's path for now, bind again on the next packet
      l.out = l.socket ? datagramOut(l.socket) : this.viaIce(l);
      if (!l.socket) l.pair = null;
      else this.takeConsent(l, pair.protocol);
    } else if (
      pair.localCandidate.type !== 'relay' &&
      transport?.type === 'udp' &&
      transport.socket
    ) {
      l.socket = transport.socket;
      l.host = pair.remoteCandidate.host;
      l.remotePort = pair.remoteCandidate.port;
      l.out = datagramOut(transport.socket, l.remotePort, l.host);
    } else {
      // relayed (TURN) or TCP: werift's ICE layer wraps it
      l.socket = null;
      l.out = this.viaIce(l);
    }
  }

  /**
   * The shard answers the peer's consent checks on the selected pair and sends its own (werift's
   * per-listener STUN path costs ~50–100 µs a message; see listener-consent.ts). werift keeps
   * everything else: checks on other pairs, DTLS, SRTCP and its NACKs.
   */
  private takeConsent(l: Listener, protocol: MuxUdpProtocol): void {
    const ice = l.ice!;
    if (typeof ice.stopConsentLifecycle !== 'function' || ice.iceLite) return;
    try {
      l.consent = new ListenerConsent(
        {
          localUsername: ice.localUsername,
          localPassword: ice.localPassword,
          remoteUsername: ice.remoteUsername,
          remotePassword: ice.remotePassword,
          iceControlling: ice.iceControlling,
          tieBreaker: ice.tieBreaker,
          priority: CHECK_PRIORITY,
        },
        [l.host, l.remotePort],
      );
    } catch {
      l.consent = null; // a password werift takes but our HMAC does not (> 64 bytes): werift's path
      return;
    }
    ice.stopConsentLifecycle();
    // werift gates its own sends (DTLS alerts) on this flag: consent is ours to keep from now on
    ice.consentFresh = true;
    protocol.steady = (data, [host, port]) => {
      const consent = l.consent;
      if (!consent || port !== l.remotePort || host !== l.host || l.pair?.protocol !== protocol) {
        return false;
      }
      const { outcome, reply } = consent.receive(data, Date.now());
      if (outcome === 'pass') return false;
      if (reply) {
        l.socket?.send(reply);
        this.consent.answered++;
      } else if (outcome === 'response') this.consent.granted++;
      return true;
    };
  }

  /** A DatagramOut through werift's ICE connection (which sends later: each datagram is copied). */
  private viaIce(l: Listener): DatagramOut {
    return (datagram) => {
      l.ice!.send(Buffer.from(datagram)).catch(() => {
        this.sendErrors++;
      });
      return true;
    };
  }

  /** Presence: a connected listener must show inbound traffic (STUN consent, RTCP) regularly. */
  private checkPresence(): void {
    const now = Date.now();
    const timeout = this.cfg.listenerTimeoutMs;
    // peers send consent checks every 4-6 s and answer ours: 2 missed rounds => gone. Anything the
    // peer sends on any pair counts: its checks often go on the pair it nominated, which need not be
    // ours, and the answers to ours are not counted when they come after werift stopped waiting
    // (0.5 s), as they do from a busy peer
    const silence = Math.max(2000, timeout - 1500);
    for (const st of [...this.stations.values()]) {
      for (const l of [...st.all.values()]) {
        if (!l.connected) {
          if (now - l.createdAt > Math.max(timeout, JOIN_WINDOW_MS)) {
            void this.remove(l, 'connect-timeout');
          }
          continue;
        }
        const act = activity(l.ice) + (l.consent?.heard ?? 0);
        if (act !== l.activity) {
          l.activity = act;
          l.lastActivity = now;
        } else if (now - l.lastActivity > silence) {
          void this.remove(l, 'consent-timeout');
          continue;
        }
        const ice = l.ice!;
        l.sendable =
          ice.state !== 'failed' && ice.state !== 'closed' && (ice.consentFresh || !!ice.iceLite);
        const consent = l.consent;
        if (consent) {
          if (consent.expired(now)) {
            l.ice!.consentFresh = false;
            void this.remove(l, 'consent-expired');
          } else if (now >= consent.nextCheckAt) {
            l.socket?.send(consent.check(now));
          }
        }
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.statsTimer);
    const all = [...this.stations.values()].flatMap((st) => [...st.all.values()]);
    await Promise.all(all.map((l) => this.remove(l, 'engine-closed', false)));
  }
}
