/**
 * Joins over a lossy link: the SFU (the werift engine, in this process) and werift listeners (the
 * CLI's peer, in a network namespace of their own: apps/sfu/bench/listener-host.ts) with 3 % of
 * the packets lost each way on the link between them (nftables `numgen random` drops in the
 * listeners' namespace, so the SFU's handshake flights and checks are lost too), and 75 ms of delay
 * each way at the listeners' sockets (apps/cli/bench/netem-shim.ts): 150 ms RTT. Every listener
 * must connect and hear the station. Counts, not durations; each listener has 20 s (the SFU gives a
 * join 10 s), far more than a handshake needs even when several flights are lost.
 * Needs root (ip netns, nft, ethtool) and `npm run build` (the listeners run the built CLI peer).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createWeriftEngine, type MediaEngine } from '../../apps/sfu/src/index.js';
import { openListenerHost, type ListenerHost } from '../../apps/sfu/bench/listener-host.js';
import { createTestPublisher, type TestPublisher } from '../../apps/sfu/testing/test-peers.js';

const LISTENERS = 20;
/** The other profiles of bench:net, for the record: RB_LOSSY_PROFILE="rttMs,lossPercent" (e.g. 300,5). */
const [RTT_MS, LOSS_PERCENT] = (process.env.RB_LOSSY_PROFILE ?? '150,3').split(',').map(Number) as [
  number,
  number,
];
const CHILD = fileURLToPath(new URL('./lossy-listeners.child.mjs', import.meta.url));
const SHIM = fileURLToPath(new URL('../../apps/cli/bench/dist/netem-shim.js', import.meta.url));

/** Why the namespace cannot be made here (not root, no nft), or null. */
function unavailable(): string | null {
  if (process.platform !== 'linux') return 'needs Linux network namespaces';
  if (process.getuid?.() !== 0) return 'needs root (ip netns, nft)';
  return null;
}
const why = unavailable();
if (why) console.warn(`lossy-joins skipped: ${why}`);

(why ? describe.skip : describe)(
  `joins over a link that loses ${LOSS_PERCENT} % each way (${RTT_MS} ms RTT)`,
  () => {
    let host: ListenerHost;
    let engine: MediaEngine;
    let publisher: TestPublisher;
    let streaming = true;
    let stream: Promise<void>;

    beforeAll(async () => {
      host = openListenerHost(0, 111);
      engine = await createWeriftEngine({ shards: 0, udpPort: 0 });
      publisher = await createTestPublisher(engine, 'lossy');
      await publisher.connected;
      stream = (async () => {
        for (let i = 0; streaming; i += 50) await publisher.stream(i, 50);
      })();
    }, 30000);
    afterAll(async () => {
      streaming = false;
      await stream;
      await publisher?.close();
      await engine?.close();
      host?.close();
    });

    it(`all ${LISTENERS} listeners connect and hear the station`, async () => {
      host.impair(LOSS_PERCENT);
      const child = spawn(
        'ip',
        [
          ...['netns', 'exec', host.ns, process.execPath, '--import', SHIM, CHILD],
          ...[String(LISTENERS), '4', '20000'],
        ],
        {
          env: { ...process.env, RB_NETEM: `delay=${RTT_MS / 2},jitter=5,loss=0` },
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const results = new Map<number, string>();
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const msg = JSON.parse(line) as { i: number; offer?: string; result?: string };
        if (msg.offer) {
          engine.addListener('lossy', msg.offer).then(
            ({ answerSdp }) =>
              child.stdin.write(JSON.stringify({ i: msg.i, answer: answerSdp }) + '\n'),
            (err: Error) => results.set(msg.i, `failed: addListener ${err.message}`),
          );
        }
        if (msg.result) results.set(msg.i, msg.result);
      });
      await done;
      const drops = host.impair(0);
      const failed = [...results].filter(([, r]) => r !== 'audio');
      // every listener reported (a child that could not start reports none: say why)
      const short = failed.length > 0 || results.size < LISTENERS;
      expect({ failed, reported: results.size, stderr: short ? stderr.slice(-2000) : '' }).toEqual({
        failed: [],
        reported: LISTENERS,
        stderr: '',
      });
      // the link did lose packets both ways while they joined
      expect(drops.in).toBeGreaterThan(0);
      expect(drops.out).toBeGreaterThan(0);
    }, 300000);
  },
);
