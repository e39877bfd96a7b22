import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import {
  MUX_TAG_LENGTH,
  TCP_MAX_BUFFERED,
  type Address,
  type MuxTarget,
  type MuxUplink,
} from '../boundary/ice-mux.js';
import { isBindingRequest, recipientUfrag } from './stun-peek.js';

export interface IceMuxRouterConfig {
  udpPort: number;
  tcpPort?: number;
  /** Default 0.0.0.0. */
  bindAddress?: string;
  /** A TCP connection must deliver its first Binding request within this (default 10 s). */
  tcpHelloTimeoutMs?: number;
}

export interface IceMuxRouterStats {
  /** Datagrams that reached the shared socket (first contact of a peer). */
  routed: number;
  dropped: number;
  tcpAccepted: number;
  tcpRefused: number;
  tcpOpen: number;
  /** Frames not written because the TCP peer did not drain its socket. */
  tcpFramesDropped: number;
}

/** First frames longer than this are not ICE. */
const MAX_HELLO_BYTES = 2048;
/** How long an address routed by its ufrag keeps its thread for datagrams without one. */
const RECENT_MS = 30_000;
const MAX_RECENT = 50_000;

/**
 * The node's two public sockets: one UDP port and one TCP port for every ICE session of every thread.
 * A Binding request names its session in USERNAME; the ufrag's tag names the thread (the main thread
 * or a listener shard), which takes it from there on a socket of its own (see IceMux).
 */
export class IceMuxRouter implements MuxUplink {
  private udp?: UdpSocket;
  private server?: Server;
  private readonly targets = new Map<string, MuxTarget>();
  private readonly recent = new Map<string, { target: MuxTarget; at: number }>();
  private readonly conns = new Map<number, Socket>();
  private nextConn = 1;
  private sweep?: NodeJS.Timeout;
  private readonly counters: Omit<IceMuxRouterStats, 'tcpOpen'> = {
    routed: 0,
    dropped: 0,
    tcpAccepted: 0,
    tcpRefused: 0,
    tcpFramesDropped: 0,
  };

  constructor(readonly cfg: IceMuxRouterConfig) {}

  /** Binds the UDP port (and listens on the TCP port); resolves with the ports actually bound. */
  async start(): Promise<{ udpPort: number; tcpPort?: number }> {
    const host = this.cfg.bindAddress ?? '0.0.0.0';
    const udp = createSocket({ type: 'udp4', reuseAddr: true });
    this.udp = udp;
    udp.on('message', (data: Buffer, rinfo) => {
      this.counters.routed++;
      this.routeUdp(data, [rinfo.address, rinfo.port]);
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ port: this.cfg.udpPort, address: host }, () => {
        udp.off('error', reject);
        udp.on('error', () => undefined);
        resolve();
      });
    });
    let tcpPort: number | undefined;
    if (this.cfg.tcpPort !== undefined) {
      const server = createServer((sock) => this.accept(sock));
      this.server = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: this.cfg.tcpPort, host }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const a = server.address();
      tcpPort = typeof a === 'object' && a ? a.port : undefined;
    }
    this.sweep = setInterval(() => this.sweepRecent(), 10_000);
    this.sweep.unref();
    return { udpPort: udp.address().port, tcpPort };
  }

  /** The thread whose ufrags start with `tag`. */
  addTarget(tag: string, target: MuxTarget): void {
    if (tag.length !== MUX_TAG_LENGTH) throw new Error(`bad mux tag ${tag}`);
    this.targets.set(tag, target);
  }

  removeTarget(tag: string): void {
    const target = this.targets.get(tag);
    this.targets.delete(tag);
    for (const [k, v] of this.recent) if (v.target === target) this.recent.delete(k);
  }

  routeUdp(data: Buffer, addr: Address): void {
    const key = `${addr[0]}:${addr[1]}`;
    const ufrag = recipientUfrag(data);
    let target = ufrag ? this.targets.get(ufrag.slice(0, MUX_TAG_LENGTH)) : undefined;
    if (target) {
      if (this.recent.size >= MAX_RECENT) this.recent.clear();
      this.recent.set(key, { target, at: Date.now() });
    } else {
      // DTLS or a response from a peer whose connected socket is not up yet
      target = this.recent.get(key)?.target;
    }
    if (!target) {
      this.counters.dropped++;
      return;
    }
    target.udp(data, addr);
  }

  stray(data: Buffer, addr: Address): void {
    this.routeUdp(data, addr);
  }

  private sweepRecent(): void {
    const old = Date.now() - RECENT_MS;
    for (const [k, v] of this.recent) if (v.at < old) this.recent.delete(k);
  }

  // ------------------------------------------------------------------ TCP

  private accept(sock: Socket): void {
    const addr: Address = [sock.remoteAddress ?? '', sock.remotePort ?? 0];
    sock.setNoDelay(true);
    sock.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => refuse(), this.cfg.tcpHelloTimeoutMs ?? 10_000);
    const refuse = () => {
      clearTimeout(timer);
      this.counters.tcpRefused++;
      sock.destroy();
    };
    const onHello = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 2) return;
      const len = head.readUInt16BE(0);
      if (len > MAX_HELLO_BYTES) return refuse();
      if (head.length < 2 + len) return head.length > MAX_HELLO_BYTES + 2 ? refuse() : undefined;
      const frame = head.subarray(2, 2 + len);
      const ufrag = isBindingRequest(frame) ? recipientUfrag(frame) : null;
      const target = ufrag ? this.targets.get(ufrag.slice(0, MUX_TAG_LENGTH)) : undefined;
      if (!ufrag || !target) return refuse();
      clearTimeout(timer);
      sock.off('data', onHello);
      const id = this.nextConn++;
      this.conns.set(id, sock);
      this.counters.tcpAccepted++;
      sock.on('data', (d: Buffer) => target.tcpData(id, d));
      sock.on('close', () => {
        if (this.conns.delete(id)) target.tcpClosed(id);
      });
      target.tcpOpen(id, ufrag, addr, head);
    };
    sock.on('data', onHello);
    sock.on('close', () => clearTimeout(timer));
  }

  tcpWrite(id: number, frame: Buffer): void {
    const sock = this.conns.get(id);
    if (!sock) return;
    // live audio: a peer that does not drain loses frames rather than growing a queue
    if (sock.writableLength > TCP_MAX_BUFFERED) {
      this.counters.tcpFramesDropped++;
      return;
    }
    sock.write(frame);
  }

  tcpClose(id: number): void {
    const sock = this.conns.get(id);
    if (!sock) return;
    this.conns.delete(id);
    sock.destroy();
  }

  stats(): IceMuxRouterStats {
    return { ...this.counters, tcpOpen: this.conns.size };
  }

  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    for (const sock of this.conns.values()) sock.destroy();
    this.conns.clear();
    this.udp?.close();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
