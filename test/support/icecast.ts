/**
 * Debian's stock icecast2 on a free loopback port with a temporary configuration: a source password,
 * optional `<relay>`s pulling from elsewhere, and a Shoutcast-protocol source port (`port + 1`).
 * Runs as `nobody` when the tests run as root (icecast refuses root).
 */
import http from 'node:http';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../apps/api/testing/ports.js';

export const ICECAST = process.env.ICECAST_PATH ?? '/usr/bin/icecast2';

export interface IcecastRelayConfig {
  /** Where icecast pulls from: http://host:port/path */
  url: string;
  /** Local mount icecast serves it on. */
  localMount: string;
}

export interface Icecast {
  port: number;
  url: string;
  sourcePassword: string;
  adminPassword: string;
  /** Everything icecast printed and logged so far. */
  output(): string;
  /** `/status-json.xsl` parsed. */
  status(): Promise<IcecastStatus>;
  stop(): Promise<void>;
}

export interface IcecastSource {
  listenurl: string;
  server_type?: string;
  server_name?: string;
  /** The title its source set (metadata updates), when there is one. */
  title?: string | null;
  total_bytes_read?: number;
}
export interface IcecastStatus {
  icestats: { source?: IcecastSource | IcecastSource[] };
}

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** icecast2 could not listen on its port. */
class PortTaken extends Error {}

export async function startIcecast(
  opts: {
    relays?: IcecastRelayConfig[];
    shoutcastMount?: string;
    /** Default: a free one. */
    port?: number;
    sourcePassword?: string;
  } = {},
): Promise<Icecast> {
  if (opts.port !== undefined) return startIcecastOn(opts.port, opts);
  // A port found free can still be taken before icecast2 binds it: then try other ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startIcecastOn(await freeLoopbackPort({ span: 2 }), opts);
    } catch (e) {
      if (attempt === 3 || !(e instanceof PortTaken)) throw e;
    }
  }
}

async function startIcecastOn(
  port: number,
  opts: { relays?: IcecastRelayConfig[]; shoutcastMount?: string; sourcePassword?: string },
): Promise<Icecast> {
  const dir = mkdtempSync(join(tmpdir(), 'icecast-'));
  chmodSync(dir, 0o777);
  const sourcePassword = opts.sourcePassword ?? `src-${Math.random().toString(36).slice(2)}`;
  const adminPassword = `adm-${Math.random().toString(36).slice(2)}`;
  const relays = (opts.relays ?? [])
    .map((r) => {
      const u = new URL(r.url);
      return `<relay><server>${xml(u.hostname)}</server><port>${u.port || 80}</port>
        <mount>${xml(u.pathname + u.search)}</mount><local-mount>${xml(r.localMount)}</local-mount>
        <on-demand>0</on-demand><relay-shoutcast-metadata>0</relay-shoutcast-metadata></relay>`;
    })
    .join('\n');
  const root = process.getuid?.() === 0;
  const config = `<icecast>
  <location>test</location><admin>test@example.com</admin>
  <limits><clients>100</clients><sources>10</sources><queue-size>524288</queue-size>
    <client-timeout>30</client-timeout><header-timeout>15</header-timeout>
    <source-timeout>10</source-timeout><burst-size>65535</burst-size></limits>
  <authentication><source-password>${sourcePassword}</source-password>
    <relay-password>${sourcePassword}</relay-password>
    <admin-user>admin</admin-user><admin-password>${adminPassword}</admin-password></authentication>
  <hostname>127.0.0.1</hostname>
  <listen-socket><port>${port}</port><bind-address>127.0.0.1</bind-address>
    ${opts.shoutcastMount ? `<shoutcast-mount>${xml(opts.shoutcastMount)}</shoutcast-mount>` : ''}
  </listen-socket>
  <master-update-interval>1</master-update-interval>
  ${relays}
  <fileserve>1</fileserve>
  <paths><basedir>/usr/share/icecast2</basedir><logdir>${dir}</logdir>
    <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot>
    <pidfile>${dir}/icecast.pid</pidfile></paths>
  <logging><accesslog>-</accesslog><errorlog>-</errorlog><loglevel>3</loglevel></logging>
  <security><chroot>0</chroot>${
    root ? '<changeowner><user>nobody</user><group>nogroup</group></changeowner>' : ''
  }</security>
</icecast>`;
  const file = join(dir, 'icecast.xml');
  writeFileSync(file, config);
  chmodSync(file, 0o644);
  const child: ChildProcess = spawn(ICECAST, ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 10_000;
  let lastTry = 'no request made';
  for (;;) {
    if (child.exitCode !== null) {
      const Failure = /could not create listener socket/i.test(out) ? PortTaken : Error;
      throw new Failure(`icecast2 exited at start:\n${out}`);
    }
    try {
      const res = await fetch(`${url}/status-json.xsl`);
      if (res.ok) break;
      lastTry = `HTTP ${res.status}`;
    } catch (e) {
      // not up yet
      lastTry = `${String(e)} (${String((e as Error).cause)})`;
    }
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`icecast2 did not start on ${url}: last status read: ${lastTry}\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    url,
    sourcePassword,
    adminPassword,
    output: () => out,
    status: async () => {
      const text = await freshGet(`${url}/status-json.xsl`);
      try {
        // icecast 2.4 writes `"title": -` for an empty title; the fields used here are unaffected.
        return JSON.parse(text.replace(/:\s*-\s*([,}])/g, ': null$1')) as IcecastStatus;
      } catch {
        // It also copies a relayed stream's metadata unescaped: keep what the tests read.
        const parts = text.split('"listenurl":"').slice(1);
        const field = (part: string, name: string) =>
          new RegExp(`"${name}":"([^"]*)"`).exec(part.split('"listenurl"')[0]!)?.[1];
        const source = parts.map((part) => ({
          listenurl: part.slice(0, part.indexOf('"')),
          server_type: field(part, 'server_type'),
          server_name: field(part, 'server_name'),
          title: field(part, 'title'),
        }));
        return { icestats: { source } };
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The sources icecast is serving, as a list. */
export function icecastSources(s: IcecastStatus): IcecastSource[] {
  const src = s.icestats.source;
  return src === undefined ? [] : Array.isArray(src) ? src : [src];
}

/**
 * GET on a connection of its own: icecast2 closes idle connections without saying so, and fetch's
 * pool then reused one it had just closed ("other side closed", seen once in CI).
 */
function freshGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
