/**
 * `bench:net` on kernels without netem (CONFIG_NET_SCH_NETEM unset, as on the CI machines): the same
 * impairment applied at the edge of a client process (`node --import …/netem-shim.js`). Every UDP
 * datagram it sends waits `delay ± jitter` ms and is lost with probability `loss`; so does every
 * datagram it receives (the other direction of the link), and each HTTP request waits one round trip.
 * RB_NETEM="delay=25,jitter=5,loss=1" (ms, ms, percent per direction), or RB_NETEM_FILE naming a file
 * that holds it (re-read when it changes).
 * Jitter keeps each direction's order (a datagram never overtakes the one before it), as queueing on
 * a real path does: werift's DTLS fails its handshake when the datagrams of one flight are reordered.
 */
import dgram from 'node:dgram';
import { readFileSync, watchFile } from 'node:fs';

type Spec = { delay?: number; jitter?: number; loss?: number };
const parse = (text: string): Spec =>
  Object.fromEntries(
    text
      .trim()
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  ) as Spec;

let delay = 0;
let jitter = 0;
let loss = 0;
const apply = (spec: Spec) => {
  delay = spec.delay ?? 0;
  jitter = spec.jitter ?? 0;
  loss = (spec.loss ?? 0) / 100;
};
apply(parse(process.env.RB_NETEM ?? ''));
// RB_NETEM_FILE: the same spec read from a file, again whenever it changes (a long-running process,
// such as the SFU's, that goes through several profiles)
const file = process.env.RB_NETEM_FILE;
if (file) {
  const read = () => {
    try {
      apply(parse(readFileSync(file, 'utf8')));
    } catch {
      // not written yet
    }
  };
  read();
  watchFile(file, { interval: 200 }, read).unref();
}
const wait = () => Math.max(0, delay + (Math.random() * 2 - 1) * jitter);
const lost = () => loss > 0 && Math.random() < loss;
/** When the last datagram of a direction is delivered: the next one waits at least until then. */
const lastDue = new WeakMap<object, number>();
function later(key: object, fn: () => void): void {
  const now = performance.now();
  const due = Math.max(now + wait(), lastDue.get(key) ?? 0);
  lastDue.set(key, due);
  setTimeout(fn, due - now);
}
const outKeys = new WeakMap<dgram.Socket, object>();
const outKey = (s: dgram.Socket) => {
  let k = outKeys.get(s);
  if (!k) outKeys.set(s, (k = {}));
  return k;
};

type Send = (this: dgram.Socket, ...args: unknown[]) => void;
const send = dgram.Socket.prototype.send as unknown as Send;
(dgram.Socket.prototype as unknown as { send: Send }).send = function (...args: unknown[]) {
  const cb = typeof args.at(-1) === 'function' ? (args.at(-1) as (e: null) => void) : null;
  if (lost()) {
    if (cb) setImmediate(() => cb(null));
    return;
  }
  // the datagram as it is now: callers may reuse their buffer once send returns
  const copy = args.map((a) => (Buffer.isBuffer(a) ? Buffer.from(a) : a));
  later(outKey(this), () => {
    try {
      send.apply(this, copy);
    } catch {
      // the socket closed while the datagram was on the wire
    }
  });
};

type Emit = (this: dgram.Socket, event: string | symbol, ...args: unknown[]) => boolean;
const emit = dgram.Socket.prototype.emit as Emit;
(dgram.Socket.prototype as unknown as { emit: Emit }).emit = function (event, ...args) {
  if (event !== 'message') return emit.call(this, event, ...args);
  if (lost()) return true;
  later(this, () => emit.call(this, event, ...args));
  return true;
};

const realFetch = globalThis.fetch;
globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
  await new Promise((r) => setTimeout(r, wait()));
  const res = await realFetch(...args);
  await new Promise((r) => setTimeout(r, wait()));
  return res;
};
