import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';

import { isIPv4, type Socket as NetSocket } from 'node:net';
import { Duplex } from 'node:stream';
import {
  Candidate,
  candidateFoundation,
  candidatePriority,
  parseMessage,
  StunProtocol,
  TcpPassiveProtocol,
  type RTCPeerConnection,
} from 'werift';
import { recipientUfrag } from '../net/stun-peek.js';

export type Address = readonly [string, number];

const addrKey = (a: Address) => `${a[0]}:${a[1]}`;

/** Every ufrag starts with its thread's tag, so the node's router finds the thread without a lookup. */
export const MUX_TAG_LENGTH = 3;
/** A session answers from at most this many remote addresses (candidate pairs it was checked on). */
const MAX_LINKS_PER_SESSION = 16;

/** What a thread's mux receives from the node's router (directly in the main thread, by message in a shard). */
export interface MuxTarget {
  /** A datagram that reached the node's shared socket (first contact) or a stray. */
  udp(data: Buffer, addr: Address): void;
  /** A TCP connection whose first RFC 4571 frame is a Binding request for `ufrag`. */
  tcpOpen(id: number, ufrag: string, addr: Address, head: Buffer): void;
  tcpData(id: number, data: Buffer): void;
  tcpClosed(id: number): void;
}

/** What a thread's mux asks of the node's router. */
export interface MuxUplink {
  /** A datagram that reached one of this thread's connected sockets but is from another peer. */
  stray(data: Buffer, addr: Address): void;
  tcpWrite(id: number, frame: Buffer): void;
  tcpClose(id: number): void;
}

export interface IceMuxConfig {
  /** Prefix of every ufrag this thread hands out (MUX_TAG_LENGTH ice-chars, unique per node). */
  tag: string;
  udpPort: number;
  /** ICE-TCP passive candidates on this port (RFC 6544); none when unset. */
  tcpPort?: number;
  /** Address the per-peer UDP sockets bind to, with the node's port (default 0.0.0.0). */
  bindAddress?: string;
  /**
   * IPv4 addresses put in the host candidates. Empty: the addresses werift gathered (interfaces,
   * loopback), as the socket-per-session mode does.
   */
  announced?: string[];
}

export interface IceMuxStats {
  sessions: number;
  /** Connected UDP sockets (one per remote address a session talked to). */
  links: number;
  tcpConnections: number;
  /** Datagrams that reached a socket connected to another peer (during its bind/connect window). */
  strays: number;
  /** Datagrams for no known session, or a first-contact Binding request failing MESSAGE-INTEGRITY. */
  dropped: number;
  /** A remote address already held by another session of this thread. */
  conflicts: number;
}

/** The werift internals the mux works with (private in werift's typings). */
interface ConnectionInternals {
  localUsername: string;
  localPassword: string;
  generation: number;
  protocols: unknown[];
  localCandidates: Candidate[];
  ensureProtocol(p: unknown): void;
  pairLocalProtocol(p: unknown): void;
  appendLocalCandidate(c: Candidate): void;
  getCandidatePromises(addresses: string[], timeout?: number): Promise<unknown>[];
  restart(): Promise<void>;
  connect(): Promise<void>;
  iceControlling: boolean;
  checkList: unknown[];
  earlyChecks: unknown[];
  state: string;
}

/** How long a controlled agent with nothing to check waits for the peer's first check. */
const FIRST_CHECK_WAIT_MS = 30_000;

interface Link {
  readonly socket: Socket;
  readonly protocol: MuxUdpProtocol;
  readonly addr: Address;
  ready: boolean;
  queue: Buffer[];
}

/** One werift ICE connection (one PeerConnection's transport) served by the mux. */
class MuxSession {
  readonly ufrags = new Set<string>();
  udp?: MuxUdpProtocol;
  tcp?: MuxTcpProtocol;
  /** Host candidates beyond the first address (no protocol of their own: they share the sockets). */
  extra: Candidate[] = [];
  constructor(readonly connection: ConnectionInternals) {}
}

/**
 * The sockets of one thread's ICE sessions on the node's single UDP port (and TCP port).
 *
 * A session answers a peer from a UDP socket bound to the node's port (SO_REUSEADDR) and `connect()`ed
 * to that peer: the kernel then delivers that peer's datagrams to this socket (a connected socket
 * outranks the node's unconnected one; Linux ≥ 6.13 finds it by a 4-tuple hash), in this thread, and
 * sends need no address. Only a peer's first datagrams reach the node's shared socket, where the router
 * reads the ufrag in the Binding request's USERNAME and hands them to the thread owning it.
 */
export class IceMux implements MuxTarget {
  private readonly sessions = new Map<string, MuxSession>();
  private readonly links = new Map<string, Link>();
  private readonly tcp = new Map<number, TcpProxy>();
  private closed = false;
  private readonly counters = { strays: 0, dropped: 0, conflicts: 0 };

  constructor(
    readonly cfg: IceMuxConfig,
    private readonly uplink: MuxUplink,
  ) {
    if (cfg.tag.length !== MUX_TAG_LENGTH || !/^[A-Za-z0-9+/]+$/.test(cfg.tag)) {
      throw new Error(`mux tag must be ${MUX_TAG_LENGTH} ICE characters: ${cfg.tag}`);
    }
  }

  /** A fresh ufrag owned by this thread (tag + 13 random hex digits). */
  newUfrag(): string {
    for (;;) {
      const ufrag = this.cfg.tag + randomBytes(7).toString('hex').slice(0, 13);
      if (!this.sessions.has(ufrag)) return ufrag;
    }
  }

  /**
   * Puts the ICE transports of `pc` on the mux. Call after setRemoteDescription (which creates them)
   * and before createAnswer/createOffer (which print the ufrag).
   */
  attach(pc: RTCPeerConnection): void {
    for (const transport of pc.iceTransports) {
      this.attachConnection(transport.connection as unknown as ConnectionInternals);
    }
  }

  private attachConnection(conn: ConnectionInternals): void {
    if (ATTACHED.has(conn)) return;
    const session = new MuxSession(conn);
    ATTACHED.set(conn, session);
    this.claim(session, this.newUfrag());
    conn.getCandidatePromises = (addresses: string[]) => this.gather(session, addresses);
    const connect = conn.connect.bind(conn);
    conn.connect = async () => {
      // A peer offering only ICE-TCP active candidates (UDP blocked) leaves a passive agent nothing
      // to pair: werift would fail at once; wait for its first check instead, as RFC 8445 expects.
      const start = Date.now();
      while (
        !conn.iceControlling &&
        conn.checkList.length === 0 &&
        conn.earlyChecks.length === 0 &&
        conn.state !== 'closed' &&
        Date.now() - start < FIRST_CHECK_WAIT_MS
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return connect();
    };
    const restart = conn.restart.bind(conn);
    conn.restart = async () => {
      await restart();
      // werift picks a 4-hex-digit ufrag: replace it with one the router can place
      this.claim(session, this.newUfrag());
      for (const p of [session.udp, session.tcp]) {
        if (p?.localCandidate) p.localCandidate.ufrag = conn.localUsername;
      }
      for (const c of session.extra) {
        c.generation = conn.generation;
        c.ufrag = conn.localUsername;
      }
    };
  }

  private claim(session: MuxSession, ufrag: string): void {
    session.connection.localUsername = ufrag;
    session.ufrags.add(ufrag);
    this.sessions.set(ufrag, session);
  }

  /** Replaces werift's gathering: host candidates on the node's ports, no sockets of its own. */
  private gather(session: MuxSession, gathered: string[]): Promise<unknown>[] {
    const conn = session.connection;
    if (session.udp) {
      // ICE restart: werift re-advertised the protocols' candidates; add the extra addresses again
      for (const c of session.extra) conn.appendLocalCandidate(c);
      return [];
    }
    const ips = this.addresses(gathered);
    if (ips.length === 0) return [];
    const make = (transport: 'udp' | 'tcp', ip: string, port: number, rank: number) =>
      new Candidate(
        candidateFoundation('host', transport, ip),
        1,
        transport,
        candidatePriority(
          'host',
          transport === 'udp'
            ? 65535 - rank
            : { transport: 'tcp', tcptype: 'passive', otherPreference: 8191 - rank },
        ),
        ip,
        port,
        'host',
        undefined,
        undefined,
        transport === 'tcp' ? 'passive' : undefined,
        conn.generation,
        conn.localUsername,
      );
    const udp = new MuxUdpProtocol(this, session, ips[0]!);
    udp.localCandidate = make('udp', ips[0]!, this.cfg.udpPort, 0);
    conn.ensureProtocol(udp);
    conn.protocols.push(udp);
    conn.pairLocalProtocol(udp);
    conn.appendLocalCandidate(udp.localCandidate);
    session.udp = udp;
    ips.slice(1).forEach((ip, i) => session.extra.push(make('udp', ip, this.cfg.udpPort, i + 1)));
    if (this.cfg.tcpPort) {
      const tcp = new MuxTcpProtocol(this, session, ips[0]!, this.cfg.tcpPort);
      tcp.localCandidate = make('tcp', ips[0]!, this.cfg.tcpPort, 0);
      conn.ensureProtocol(tcp);
      conn.protocols.push(tcp);
      conn.appendLocalCandidate(tcp.localCandidate);
      session.tcp = tcp;
      ips
        .slice(1)
        .forEach((ip, i) => session.extra.push(make('tcp', ip, this.cfg.tcpPort!, i + 1)));
    }
    for (const c of session.extra) conn.appendLocalCandidate(c);
    return [];
  }

  private addresses(gathered: string[]): string[] {
    const list = this.cfg.announced?.length ? this.cfg.announced : gathered;
    return [...new Set(list.filter((a) => isIPv4(a)))];
  }

  // ------------------------------------------------------------------ UDP

  /** A datagram for this thread that did not arrive on a connected socket of its own. */
  udp(data: Buffer, addr: Address): void {
    const link = this.links.get(addrKey(addr));
    if (link) {
      link.protocol.receive(data, addr);
      return;
    }
    const ufrag = recipientUfrag(data);
    const session = ufrag ? this.sessions.get(ufrag) : undefined;
    // First contact: only a Binding request signed with the session's password opens a socket.
    if (
      !session?.udp ||
      !parseMessage(data, Buffer.from(session.connection.localPassword, 'utf8'))
    ) {
      this.counters.dropped++;
      return;
    }
    session.udp.receive(data, addr);
  }

  /** Sends from the node's port to `addr`, opening the session's connected socket on first use. */
  sendUdp(protocol: MuxUdpProtocol, data: Buffer, addr: Address): void {
    const key = addrKey(addr);
    let link = this.links.get(key);
    if (!link) {
      if (this.closed || protocol.links.size >= MAX_LINKS_PER_SESSION) return;
      link = this.openLink(protocol, addr, key);
    } else if (link.protocol !== protocol) {
      this.counters.conflicts++;
      return;
    }
    if (link.ready) link.socket.send(data);
    else link.queue.push(Buffer.from(data));
  }

  private openLink(protocol: MuxUdpProtocol, addr: Address, key: string): Link {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    const link: Link = { socket, protocol, addr, ready: false, queue: [] };
    this.links.set(key, link);
    protocol.links.set(key, link);
    const [host, port] = addr;
    // ICMP errors (the peer went away) surface here on a connected socket; presence checks handle them
    socket.on('error', () => undefined);
    socket.on('message', (data: Buffer, rinfo) => {
      if (rinfo.port === port && rinfo.address === host) protocol.receive(data, addr);
      else {
        // queued before connect() narrowed the socket to its peer
        this.counters.strays++;
        this.uplink.stray(data, [rinfo.address, rinfo.port]);
      }
    });
    socket.bind({ port: this.cfg.udpPort, address: this.cfg.bindAddress ?? '0.0.0.0' }, () => {
      if (this.links.get(key) !== link) return;
      socket.connect(port, host, (err?: Error) => {
        if (this.links.get(key) !== link) return;
        if (err) {
          this.closeLink(key);
          return;
        }
        link.ready = true;
        for (const d of link.queue) socket.send(d);
        link.queue = [];
      });
    });
    return link;
  }

  private closeLink(key: string): void {
    const link = this.links.get(key);
    if (!link) return;
    this.links.delete(key);
    link.protocol.links.delete(key);
    try {
      link.socket.close();
    } catch {
      // already closed
    }
  }

  /** The connected socket to `addr` once it is ready (the fan-out sends on it directly). */
  socketTo(addr: Address): Socket | null {
    const link = this.links.get(addrKey(addr));
    return link?.ready ? link.socket : null;
  }

  releaseUdp(protocol: MuxUdpProtocol): void {
    for (const key of [...protocol.links.keys()]) this.closeLink(key);
    this.releaseSession(protocol.session);
  }

  private releaseSession(session: MuxSession): void {
    if (session.udp && !session.udp.closed) return;
    if (session.tcp && !session.tcp.closed) return;
    for (const u of session.ufrags) if (this.sessions.get(u) === session) this.sessions.delete(u);
  }

  // ------------------------------------------------------------------ TCP

  tcpOpen(id: number, ufrag: string, addr: Address, head: Buffer): void {
    const session = this.sessions.get(ufrag);
    if (!session?.tcp || session.tcp.closed) {
      this.counters.dropped++;
      this.uplink.tcpClose(id);
      return;
    }
    const proxy = new TcpProxy(id, addr, this.uplink, () => this.tcp.delete(id));
    this.tcp.set(id, proxy);
    session.tcp.adopt(proxy, addr);
    proxy.push(head);
  }

  tcpData(id: number, data: Buffer): void {
    this.tcp.get(id)?.push(data);
  }

  tcpClosed(id: number): void {
    const proxy = this.tcp.get(id);
    if (!proxy) return;
    this.tcp.delete(id);
    proxy.remoteClosed();
  }

  releaseTcp(protocol: MuxTcpProtocol): void {
    this.releaseSession(protocol.session);
  }

  stats(): IceMuxStats {
    const sessions = new Set(this.sessions.values()).size;
    return {
      sessions,
      links: this.links.size,
      tcpConnections: this.tcp.size,
      ...this.counters,
    };
  }

  close(): void {
    this.closed = true;
    for (const key of [...this.links.keys()]) this.closeLink(key);
    for (const proxy of this.tcp.values()) proxy.destroy();
    this.tcp.clear();
    this.sessions.clear();
  }
}

const ATTACHED = new WeakMap<ConnectionInternals, MuxSession>();

/** werift's STUN protocol with the mux as its transport: no socket of its own. */
export class MuxUdpProtocol extends StunProtocol {
  readonly links = new Map<string, Link>();
  closed = false;
  constructor(
    private readonly mux: IceMux,
    readonly session: MuxSession,
    ip: string,
  ) {
    super();
    this.localIp = ip;
    this.connectionMade = async () => undefined;
    const transport = {
      type: 'udp' as const,
      socketType: 'udp4',
      closed: false,
      get address() {
        return { address: ip, family: 'IPv4', port: mux.cfg.udpPort };
      },
      send: async (data: Buffer, addr?: Address) => {
        if (addr) mux.sendUdp(this, data, addr);
      },
      close: async () => {
        transport.closed = true;
        this.closed = true;
        mux.releaseUdp(this);
      },
    };
    this.transport = transport as unknown as StunProtocol['transport'];
  }

  /**
   * Sees each datagram before werift and returns true for those it took (the listener shard's
   * consent checks on a connected session's selected pair).
   */
  steady?: (data: Buffer, addr: Address) => boolean;

  receive(data: Buffer, addr: Address): void {
    if (this.steady?.(data, addr)) return;
    (this as unknown as { datagramReceived(d: Buffer, a: Address): void }).datagramReceived(
      data,
      addr,
    );
  }

  /** The connected socket to a remote address (direct send path of the fan-out). */
  socketTo(addr: Address): Socket | null {
    return this.mux.socketTo(addr);
  }
}

/** werift's passive ICE-TCP protocol fed with connections the node's TCP port accepted. */
export class MuxTcpProtocol extends TcpPassiveProtocol {
  closed = false;
  constructor(
    private readonly mux: IceMux,
    readonly session: MuxSession,
    ip: string,
    private readonly port: number,
  ) {
    super();
    this.localIp = ip;
  }

  override async connectionMade(): Promise<void> {
    // the node's TCP port is already listening
  }

  override get listeningPort(): number {
    return this.port;
  }

  adopt(socket: Duplex, addr: Address): void {
    this.registerSocket(socket as unknown as NetSocket, addr);
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of Object.values(this.transactions)) t.cancel();
    await this.pruneForSelection();
    this.onRequestReceived.complete();
    this.onDataReceived.complete();
    this.mux.releaseTcp(this);
  }
}

/** Per-frame queue limit of a TCP peer: audio frames beyond it are dropped, not buffered. */
export const TCP_MAX_BUFFERED = 256 * 1024;

/** A TCP connection owned by the router, seen by werift as a socket. */
class TcpProxy extends Duplex {
  readonly remoteAddress: string;
  readonly remotePort: number;
  private ended = false;
  constructor(
    private readonly id: number,
    addr: Address,
    private readonly uplink: MuxUplink,
    private readonly onGone: () => void,
  ) {
    super();
    this.remoteAddress = addr[0];
    this.remotePort = addr[1];
  }
  override _read(): void {
    // data is pushed as the router receives it
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (!this.ended) this.uplink.tcpWrite(this.id, chunk);
    cb();
  }
  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.ended) {
      this.ended = true;
      this.uplink.tcpClose(this.id);
    }
    this.onGone();
    cb(err);
  }
  remoteClosed(): void {
    this.ended = true;
    this.destroy();
  }
}
