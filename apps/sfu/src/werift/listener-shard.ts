import type { RTCPeerConnection, RTCRtpTransceiver } from '../boundary/werift.js';
import type { IceMux, IceMuxStats } from '../boundary/ice-mux.js';
import { validateOffer } from '../sdp.js';
import { threadCpuSeconds } from './capacity.js';
import { FanOut } from './fan-out.js';
import { Gate } from './gate.js';
import { Listener, StationListeners, type IceConnection } from './listener.js';
import { negotiateAnswer } from './negotiate.js';
import { Presence } from './presence.js';
import { handshakeStep, iceConnectionOf } from '../boundary/internals.js';
import { extractSrtpKeys, SrtpStreamSender } from '../boundary/srtp-sender.js';
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
 * Holds the listener PeerConnections of one shard (one worker thread, or the engine's own thread):
 * who joins and leaves (here), what they are sent (fan-out.ts) and whether they are still there
 * (presence.ts).
 */
export class ListenerShard {
  private readonly stations = new Map<string, StationListeners>();
  private readonly out = new FanOut();
  private readonly presence: Presence;
  private readonly statsTimer: NodeJS.Timeout;
  private closed = false;
  private readonly handshakes = new Gate(HANDSHAKES_AT_ONCE);
  private handshakesStarted = 0;

  constructor(
    private readonly cfg: ShardConfig,
    private readonly emit: (e: ShardEvent) => void,
    /** Sessions on the node's one port (the shard's thread's mux), or a socket per session. */
    private readonly mux?: IceMux,
  ) {
    this.presence = new Presence(this.stations, cfg.listenerTimeoutMs, (l, reason) => {
      void this.remove(l, reason);
    });
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
      packetsOut: this.out.packetsOut,
      bytesOut: this.out.bytesOut,
      sendErrors: this.out.sendErrors,
      packetsIn: this.out.packetsIn,
      retransmits: this.out.retransmits,
      gcm,
      cm: listeners - gcm,
      handshakes: this.handshakesStarted,
      cpuSeconds: threadCpuSeconds(),
      mux: this.mux?.stats(),
      consent: { ...this.out.consent },
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
    sender.onGenericNack.subscribe((nack) => this.out.retransmit(l, nack.lost));
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
      this.out.forget(l.stationId);
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
    this.out.forget(stationId);
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
    this.out.packet(stationId, this.stations.get(stationId), seq, timestamp, marker, payload);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.presence.stop();
    clearInterval(this.statsTimer);
    const all = [...this.stations.values()].flatMap((st) => [...st.all.values()]);
    await Promise.all(all.map((l) => this.remove(l, 'engine-closed', false)));
  }
}
