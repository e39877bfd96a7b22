/**
 * A listener whose first path breaks after it connected: Debian's Chromium in a network namespace
 * of its own, joined to this host by two veth pairs (two addresses on each side), hears a station
 * with the player on the station page. Once it plays, UDP to and from the SFU address of its
 * selected candidate pair is dropped (nftables in the namespace); Chromium moves to a pair through
 * the other address. The SFU must follow it: answer its consent checks on the new pair, keep the
 * listener past the 10 s consent timeout, and send the audio there.
 *
 * mediasoup (ICE-lite, its WebRtcServer) follows the browser's nomination of the new pair. The
 * werift engine's listener shard sends on the pair the browser nominated first and does not follow a
 * move (ARCHITECTURE.md): its half is the same test, marked as the known limitation (`it.failing`:
 * the suite fails if werift ever passes it, so the mark is removed then).
 * Needs root (ip netns, nft) and `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { EngineEvent, MediaEngine } from '@radiobroadcaster/sfu';
import {
  freeLoopbackPort,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../apps/api/testing/test-app.js';
import { MEDIA_ENGINE } from '../../apps/api/src/media/media.providers.js';
import {
  launchChromium,
  peerConnectionRoutes,
  recordPeerConnections,
  toneProminence,
} from '../support/browser.js';
import { enginesHere, freeUdpPorts, selectedPairs } from '../support/engines.js';
import { holdsFor } from '../support/wait.js';
import { type CliBroadcast, stationOnAirWithTone, until } from '../support/web-app.js';

const TONE_HZ = 440;
const AUDIO = '[data-testid=station-audio]';
/** The SFU removes a listener whose consent checks stop for 10 s. */
const CONSENT_TIMEOUT_MS = 10_000;

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

/** Why the namespace cannot be made here, or null. */
function unavailable(): string | null {
  if (process.platform !== 'linux') return 'needs Linux network namespaces';
  if (process.getuid?.() !== 0) return 'needs root (ip netns, nft)';
  try {
    run('ip', ['-V']);
    run('nft', ['--version']);
  } catch {
    return 'needs iproute2 and nftables';
  }
  return null;
}

interface TwoPaths {
  ns: string;
  /** The host's address on each path (the SFU's candidates there). */
  hostA: string;
  hostB: string;
  /** Drops UDP to and from `address` inside the namespace. */
  cut(address: string): void;
  close(): void;
}

/** Removes the namespaces of earlier runs that were killed before they could (their veths go too). */
function sweepStale(): void {
  let list = '';
  try {
    list = run('ip', ['netns', 'list']);
  } catch {
    return;
  }
  for (const m of list.matchAll(/^rb-pairmove-(\d+)/gm)) {
    try {
      process.kill(Number(m[1]), 0);
      continue; // its process still runs
    } catch {
      // gone
    }
    try {
      run('ip', ['netns', 'del', m[0]]);
    } catch {
      // removed meanwhile
    }
  }
}

const IPV6_OFF =
  'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6';

/** A namespace joined to this host by two veth pairs: 10.219.n.1/.2 and 10.219.n.5/.6. */
function openTwoPaths(): TwoPaths {
  sweepStale();
  const id = process.pid % 10000;
  const ns = `rb-pairmove-${process.pid}`;
  const net = `10.219.${process.pid % 250}`;
  const paths = [
    { host: `rbm${id}a`, peer: `rbm${id}A`, hostIp: `${net}.1`, peerIp: `${net}.2` },
    { host: `rbm${id}b`, peer: `rbm${id}B`, hostIp: `${net}.5`, peerIp: `${net}.6` },
  ];
  const close = () => {
    try {
      run('ip', ['netns', 'del', ns]); // takes the veth pairs with it
    } catch {
      // not there
    }
  };
  close();
  try {
    run('ip', ['netns', 'add', ns]);
    // No IPv6 in the namespace: a veth's link-local address becomes valid a second or two after the
    // link comes up (duplicate address detection), which Chromium, started just after, takes for a
    // network change and fails its requests in flight with ERR_NETWORK_CHANGED (a fresh-clone run:
    // the station page's scripts did not load, so no Play button).
    run('ip', ['netns', 'exec', ns, 'sh', '-c', IPV6_OFF]);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    for (const p of paths) {
      run('ip', ['link', 'add', p.host, 'type', 'veth', 'peer', 'name', p.peer, 'netns', ns]);
      run('ip', ['addr', 'add', `${p.hostIp}/30`, 'dev', p.host]);
      run('ip', ['link', 'set', p.host, 'up']);
      run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${p.peerIp}/30`, 'dev', p.peer]);
      run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', p.peer, 'up']);
    }
  } catch (err) {
    close();
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`two paths: ${e.stderr?.toString().trim() || e.message}`);
  }
  return {
    ns,
    hostA: paths[0]!.hostIp,
    hostB: paths[1]!.hostIp,
    cut: (address) =>
      run(
        'ip',
        ['netns', 'exec', ns, 'nft', '-f', '-'],
        `table inet rbpairmove {
  chain in { type filter hook input priority -300; policy accept; ip saddr ${address} meta l4proto udp drop; }
  chain out { type filter hook output priority -300; policy accept; ip daddr ${address} meta l4proto udp drop; }
}
`,
      ),
    close,
  };
}

/** Forwards TCP from `host:port` to 127.0.0.1:port (the API listens on loopback only). */
async function forwardTcp(host: string, port: number): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  await new Promise<void>((ok) => server.listen(port, host, ok));
  return server;
}

const why = unavailable();
if (why) console.warn(`ice-pair-move skipped: ${why}`);
const ENGINES = enginesHere('ice-pair-move');

(why ? describe.skip : describe).each(ENGINES)(
  'Chromium moves to another candidate pair after connecting: %s engine',
  (engineName, skipped) => {
    // werift's shard does not follow a move: the known limitation, asserted as such
    const check = skipped ? it.skip : engineName === 'werift' ? it.failing : it;
    let paths: TwoPaths;
    let forward: Server;
    let app: TestApp;
    let browser: Browser;
    let owner: TestUser;
    let slug: string;
    let cli: CliBroadcast | undefined;
    let wrapperDir: string;
    const events: EngineEvent[] = [];

    beforeAll(async () => {
      if (skipped) return;
      // the paths first: the SFU listens on the addresses it finds when it starts
      paths = openTwoPaths();
      const port = await freeLoopbackPort();
      forward = await forwardTcp(paths.hostA, port);
      const publicUrl = `http://${paths.hostA}:${port}`;
      app = await startTestApp({
        port,
        env: {
          PORT: String(port),
          PUBLIC_URL: publicUrl,
          MEDIA_ENGINE: engineName,
          RTC_UDP_PORT: String(await freeUdpPorts(2)),
          SFU_SHARDS: engineName === 'mediasoup' ? '1' : '0',
          ICE_SERVERS: '[]',
        },
      });
      app.app.get<MediaEngine>(MEDIA_ENGINE).on((e) => events.push(e));
      wrapperDir = mkdtempSync(join(tmpdir(), 'rb-pairmove-'));
      const wrapper = join(wrapperDir, 'chromium-in-ns');
      writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${paths.ns} /usr/bin/chromium "$@"\n`);
      chmodSync(wrapper, 0o755);
      browser = await launchChromium({
        executablePath: wrapper,
        // its real addresses in its candidates, as the SFU sees them
        extraArgs: ['--disable-features=WebRtcHideLocalIpsWithMdns'],
      });
      let created;
      ({ owner, created, cli } = await stationOnAirWithTone(
        app.url,
        { name: 'Move FM', slug: 'move-fm' },
        TONE_HZ,
      ));
      slug = created.station.slug;
    }, 90_000);

    afterAll(async () => {
      await cli?.stop();
      await browser?.close();
      await app?.close();
      await new Promise<void>((ok) => (forward ? forward.close(() => ok()) : ok()));
      paths?.close();
      if (wrapperDir) rmSync(wrapperDir, { recursive: true, force: true });
    }, 60_000);

    check(
      `${engineName}: the SFU answers consent on the new pair, keeps the listener past the consent timeout and sends the audio there`,
      async () => {
        const engine = app.app.get<MediaEngine>(MEDIA_ENGINE);
        const page: Page = await browser.newPage();
        await recordPeerConnections(page);
        // what the page met on the way, said if its Play button never comes (it once did not, in CI)
        const seen: string[] = [];
        page.on('console', (m) => m.type() === 'error' && seen.push(`console: ${m.text()}`));
        page.on('requestfailed', (r) => seen.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
        page.on('response', (r) => r.status() >= 400 && seen.push(`${r.status()}: ${r.url()}`));
        await page.goto(`${app.config.publicUrl}/${owner.username}/${slug}`);
        await page
          .getByRole('button', { name: 'Play Move FM' })
          .click({ timeout: 30_000 })
          .catch(async (err: Error) => {
            const text = await page.evaluate(() => document.body.innerText).catch(String);
            throw new Error(
              `${err.message}\npage ${page.url()} says: ${text.slice(0, 800)}\n${seen.join('\n')}` +
                `\nengine events: ${JSON.stringify(events.slice(-20))}` +
                `\nthe broadcaster said: ${cli?.output().slice(-3000)}`,
            );
          });
        await page.waitForSelector('[data-testid=player-state][data-state=live]', {
          timeout: 30_000,
        });
        const [first] = await until(
          'Chromium to receive audio over one of the two paths',
          () => selectedPairs(page),
          ([p]) => p !== undefined && [paths.hostA, paths.hostB].includes(p.remote.address),
          15_000,
        );
        const other = first!.remote.address === paths.hostA ? paths.hostB : paths.hostA;
        const listenerGone = () => events.filter((e) => e.type === 'listener-gone');
        expect(listenerGone()).toEqual([]);

        paths.cut(first!.remote.address);
        // Chromium finds its pair unanswered within seconds and moves to one through the other address
        const [moved] = await until(
          `Chromium to move to a pair through ${other}`,
          () => selectedPairs(page),
          ([p]) => p?.remote.address === other,
          20_000,
        );
        expect(moved!.remote.address).toBe(other);
        const [atMove] = await until(
          'audio to arrive over the new pair',
          () => peerConnectionRoutes(page),
          ([r]) => r !== undefined && r.audioPacketsReceived > 0,
          10_000,
        );
        // past the consent timeout: the SFU keeps the listener, because its checks are answered
        await holdsFor(
          () => engine.stats().listeners === 1 && listenerGone().length === 0,
          CONSENT_TIMEOUT_MS + 3000,
          'the listener kept by the SFU',
          250,
        );
        const [later] = await peerConnectionRoutes(page);
        expect(later!.connectionState).toBe('connected');
        // Chromium's consent checks on the new pair were answered (it checks every ~2.5 s)...
        expect(later!.stun.responsesReceived).toBeGreaterThan(atMove!.stun.responsesReceived);
        // ...and the audio kept coming there: 50 packets a second, most of 13 s
        expect(later!.audioPacketsReceived).toBeGreaterThan(atMove!.audioPacketsReceived + 400);
        const [still] = await selectedPairs(page);
        expect(still!.remote.address).toBe(other);
        expect(await page.getByTestId('player-state').getAttribute('data-state')).toBe('live');
        expect(
          await toneProminence(page, { audioSelector: AUDIO }, TONE_HZ, 3000, 20),
        ).toBeGreaterThanOrEqual(20);
        expect(listenerGone()).toEqual([]);
        await page.close();
      },
      120_000,
    );
  },
);
