/**
 * Ports for the servers tests start. Apart from test-app.ts (which re-exports it) so that helpers
 * that start only a tool (coturn, icecast2) do not load the app's module graph with it.
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
export function ephemeralLow(): number {
  try {
    const low = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    if (Number.isInteger(low) && low > FIRST_CHOSEN_PORT + 1000) return low;
  } catch {
    // not Linux: the default below
  }
  return 32_768;
}

const FIRST_CHOSEN_PORT = 10_000;

/**
 * The Fetch standard's "bad ports" from {@link FIRST_CHOSEN_PORT} up: Node's fetch fails on them
 * ("bad port") and Chromium refuses them (ERR_UNSAFE_PORT), so a server there looks down to a test
 * (icecast2 on 10080 once never became ready in CI).
 */
const FETCH_BAD_PORTS = new Set([10_080]);

/** Whether `port` can be listened on at 127.0.0.1 now (TCP, and UDP with `udp`). */
async function canListen(port: number, udp: boolean): Promise<boolean> {
  const tcp = await new Promise<boolean>((ok) => {
    const server = createServer();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
  if (!tcp || !udp) return tcp;
  return new Promise<boolean>((ok) => {
    const socket = createSocket('udp4');
    socket.once('error', () => ok(false));
    socket.bind(port, '127.0.0.1', () => socket.close(() => ok(true)));
  });
}

/**
 * A free loopback port for a server a test starts (and may stop and start again on the same port),
 * chosen below the kernel's ephemeral range: a port from that range (a `listen(0)` released at
 * once) can be taken in the meantime by any outgoing connection of the parallel test processes as
 * its source port, and then the restart fails with EADDRINUSE, as a bucket's restart in
 * recordings-s3.spec did on a loaded CI run. `span` ports from the one returned are free (icecast2's
 * Shoutcast source port is the next one); `udp`: free for UDP too (a TURN relay's listener).
 */
export async function freeLoopbackPort(
  opts: { span?: number; udp?: boolean } = {},
): Promise<number> {
  const span = opts.span ?? 1;
  const high = ephemeralLow() - span;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST_CHOSEN_PORT + Math.floor(Math.random() * (high - FIRST_CHOSEN_PORT));
    let free = true;
    for (let i = 0; i < span && free; i++) free = !FETCH_BAD_PORTS.has(port + i);
    for (let i = 0; i < span && free; i++) free = await canListen(port + i, opts.udp ?? false);
    if (free) return port;
  }
  throw new Error(`no ${span} free loopback port(s) in ${FIRST_CHOSEN_PORT}-${high + span - 1}`);
}
