/**
 * A shard's send path: each station's packets to its connected listeners (straight to the selected
 * pair's socket, SRTP by the shard), the retransmissions they NACK, and the consent checks on the
 * node's one port that the shard answers in werift's place.
 */
import { candidatePriority } from '../boundary/werift.js';
import { MuxUdpProtocol } from '../boundary/ice-mux.js';
import { datagramOut, type DatagramOut } from '../boundary/datagram-out.js';
import { OutgoingRtp } from '../boundary/srtp-sender.js';
import { PacketCache } from '../nack.js';
import { ListenerConsent } from './listener-consent.js';
import type { IcePair, Listener, StationListeners } from './listener.js';

/** The PRIORITY of our consent checks: a peer-reflexive UDP candidate's (RFC 8445 7.1.1). */
const CHECK_PRIORITY = candidatePriority('prflx', { transport: 'udp' });

export class FanOut {
  /** Recent packets per station, to answer listeners' NACKs (5 s of 20 ms frames). */
  private readonly caches = new Map<string, PacketCache<OutgoingRtp>>();
  retransmits = 0;
  packetsOut = 0;
  bytesOut = 0;
  sendErrors = 0;
  packetsIn = 0;
  readonly consent = { answered: 0, granted: 0 };

  /** Forgets the station's recent packets (it has no listeners here any more, or it closed). */
  forget(stationId: string): void {
    this.caches.delete(stationId);
  }

  /** Fan-out of one publisher packet (seq/timestamp already rewritten by the engine). */
  packet(
    stationId: string,
    st: StationListeners | undefined,
    seq: number,
    timestamp: number,
    marker: boolean,
    payload: Uint8Array,
  ): void {
    this.packetsIn++;
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
  retransmit(l: Listener, lost: number[]): void {
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
}
