import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort } from '../../apps/api/testing/ports.js';
import { within } from './wait.js';

/** The coturn configuration the README and the compose files document. */
export const COTURN_CONF = fileURLToPath(
  new URL('../../docker/coturn/turnserver.conf', import.meta.url),
);

export interface Coturn {
  /** TCP and UDP port of the relay's listener (127.0.0.1). */
  port: number;
  secret: string;
  output(): string;
  stop(): Promise<void>;
}

/** A port free for both TCP and UDP on 127.0.0.1. */
export const freePort = (): Promise<number> => freeLoopbackPort({ udp: true });

/** This machine's first non-loopback IPv4 address (what the relay may reach, unlike loopback). */
export function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine: the TURN tests need one');
}

/**
 * Debian's coturn with docker/coturn/turnserver.conf as it ships; only what a deployment passes on the
 * command line differs (secret, allowed SFU address, ports).
 */
export async function startCoturn(opts: {
  secret: string;
  allowedPeers: string[];
  /** Where relayed traffic leaves from; default this machine's non-loopback address. */
  relayIp?: string;
  /** Flags a test adds (e.g. `--allow-loopback-peers` to stand an SFU on a loopback address). */
  extraArgs?: string[];
}): Promise<Coturn> {
  const port = await freePort();
  const relayBase = 50000 + Math.floor(Math.random() * 150) * 100;
  const dir = mkdtempSync(join(tmpdir(), 'rb-coturn-'));
  const args = [
    '-c',
    COTURN_CONF,
    `--listening-port=${port}`,
    '--listening-ip=127.0.0.1',
    // relayed traffic leaves from the machine's address, as from a real relay
    `--relay-ip=${opts.relayIp ?? hostAddress()}`,
    '--no-tls',
    '--no-dtls',
    `--min-port=${relayBase}`,
    `--max-port=${relayBase + 99}`,
    `--static-auth-secret=${opts.secret}`,
    ...opts.allowedPeers.map((ip) => `--allowed-peer-ip=${ip}`),
    `--pidfile=${join(dir, 'turnserver.pid')}`,
    `--userdb=${join(dir, 'turndb')}`,
    '--verbose',
    ...(opts.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn('turnserver', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const end = Date.now() + 15000;
  const ready = () =>
    out.includes(`TCP listener opened on : 127.0.0.1:${port}`) &&
    out.includes(`UDP listener opened on: 127.0.0.1:${port}`) &&
    /Total (General|UDP) servers/.test(out);
  while (!ready()) {
    if (child.exitCode !== null) throw new Error(`turnserver exited:\n${out}`);
    if (Date.now() > end) throw new Error(`turnserver did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    secret: opts.secret,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      // a turnserver still running 3 s after SIGTERM is killed
      await within(exited, 3000, 'turnserver exiting').catch(() => undefined);
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
