import type { Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

/**
 * Where a listener's datagrams go. Returns true when the kernel took the datagram during the call
 * (its bytes may be written over at once), false when it had to be queued (the buffer is the
 * queue's until it is sent).
 */
export type DatagramOut = (datagram: Buffer) => boolean;

/** The parts of Node's UDP handle (`internalBinding('udp_wrap').UDP`) the fan-out calls. */
interface UdpHandle {
  send(req: object, list: Buffer[], count: number, hasCallback: boolean): number;
  send(
    req: object,
    list: Buffer[],
    count: number,
    port: number,
    address: string,
    hasCallback: boolean,
  ): number;
  lookup?: (address: string, cb: (err: Error | null, ip: string, family: number) => void) => void;
}

type SendWrapClass = new () => { list?: Buffer[] };

/** Node's send request class, where this Node exposes it (20, 22 and 24 do). */
const SendWrap: SendWrapClass | null = (() => {
  try {
    const binding = (
      process as unknown as { binding(name: string): { SendWrap?: unknown } }
    ).binding('udp_wrap');
    return typeof binding.SendWrap === 'function' ? (binding.SendWrap as SendWrapClass) : null;
  } catch {
    return null;
  }
})();

const stateSymbol = (socket: Socket) =>
  Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');

function stateOf(socket: Socket): { handle?: UdpHandle } | undefined {
  const sym = stateSymbol(socket);
  return sym ? (socket as unknown as Record<symbol, { handle?: UdpHandle }>)[sym] : undefined;
}

/**
 * A DatagramOut for `socket` (connected to its peer when `port` is 0, else sending to
 * `address:port`, an IPv4 literal).
 *
 * `socket.send` spends ~1 µs of JavaScript per datagram before the system call (argument checks, a
 * list and a request object, the address lookup, which for an unconnected socket defers to the next
 * tick): at thousands of listeners that is a tenth of the fan-out. Here each datagram goes straight
 * to Node's UDP handle with one reused request object, as `socket.send` itself does once it is past
 * those steps. A send that libuv had to queue keeps its request (and the list holding the buffer)
 * and the next one gets new ones. Where Node's internals differ, `socket.send` is used.
 */
export function datagramOut(socket: Socket, port = 0, address = ''): DatagramOut {
  const state = stateOf(socket);
  const handle = state?.handle;
  if (!SendWrap || !state || !handle || !sendsThroughHandle(socket) || (port && !isIPv4(address))) {
    return viaSocket(socket, port, address);
  }
  let req = new SendWrap();
  let list: Buffer[] = [Buffer.alloc(0)];
  const fallback = viaSocket(socket, port, address);
  return (datagram) => {
    // closed, or rebound: whatever socket.send does now
    if (state.handle !== handle) return fallback(datagram);
    list[0] = datagram;
    const sent = port
      ? handle.send(req, list, 1, port, address, false)
      : handle.send(req, list, 1, false);
    // msg_length + 1: sent during the call; 0: queued; < 0: an error (dropped, as socket.send does)
    if (sent !== 0) return true;
    req.list = list; // what the queued send reads from stays alive with its request
    req = new SendWrap!();
    list = [Buffer.alloc(0)];
    return false;
  };
}

/**
 * Whether `datagramOut` sends this socket's datagrams straight through Node's UDP handle (the fast path)
 * rather than through `socket.send` (the fallback, where this Node's internals differ).
 */
export function sendsThroughHandle(socket: Socket): boolean {
  const handle = stateOf(socket)?.handle;
  return SendWrap !== null && !!handle && typeof handle.send === 'function';
}

/** Whether dgram's per-socket address lookup can be answered synchronously (see enableSyncLookup). */
export function lookupReplaceable(socket: Socket): boolean {
  return typeof stateOf(socket)?.handle?.lookup === 'function';
}

function viaSocket(socket: Socket, port: number, address: string): DatagramOut {
  if (port) enableSyncLookup(socket);
  return (datagram) => {
    if (port) socket.send(datagram, port, address);
    else socket.send(datagram);
    return !(socket.getSendQueueSize?.() > 0);
  };
}

const patchedSockets = new WeakSet<Socket>();

/**
 * dgram resolves the destination of every unconnected send through dns.lookup, which for an IP literal
 * defers to process.nextTick (one tick, two closures per datagram). For IPv4 literals we answer
 * synchronously instead; anything else still goes to the original lookup. Best effort: if Node's
 * internals differ, nothing is changed.
 */
function enableSyncLookup(socket: Socket): void {
  if (patchedSockets.has(socket)) return;
  patchedSockets.add(socket);
  const handle = stateOf(socket)?.handle;
  if (!handle || typeof handle.lookup !== 'function') return;
  const original = handle.lookup;
  handle.lookup = (address, cb) => {
    if (isIPv4(address)) cb(null, address, 4);
    else original.call(handle, address, cb);
  };
}
