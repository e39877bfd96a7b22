/**
 * `npm run bench:net`: the live path over an emulated internet. The API with its embedded SFU, the
 * CLI broadcaster and the listeners run in three network namespaces joined by veth pairs
 * (publisher ↔ SFU, SFU ↔ listeners), each link impaired like a real one:
 *   A: 50 ms RTT, 10 ms jitter, 1 % loss;  B: 150 ms RTT, 10 ms jitter, 3 % loss;
 *   C (for the record): 300 ms RTT, 20 ms jitter, 5 % loss.
 * The impairment is `tc qdisc … netem` on both ends of each veth when the kernel has netem. Without it
 * (CONFIG_NET_SCH_NETEM unset, as on the CI machines): the loss is nftables in the client's namespace
 * (`numgen random` drops on its veth, both directions: the SFU's datagrams are lost on the way in as
 * the client's are on the way out), and delay and jitter are applied at the client processes' sockets
 * (netem-shim.ts: both directions of their UDP, one round trip per HTTP request); the report says
 * which ran. Reports per run and over all runs: joins connected, join → first audio p50/p95,
 * publisher → listener latency p50/p95, and 20 ms frames still missing after recovery (NACK + Opus
 * FEC): never received, or received more than 250 ms after the gap showed (too late to play).
 * Needs root (ip netns, nft); prints why and exits 0 otherwise.
 * Options: --runs 3 --listeners 20 --duration 30 (seconds of listening per run); 200 joins a profile:
 * --joins 200 (runs of --listeners until 200 joined). --profile "rttMs,jitterMs,lossPercent" runs one profile.
 * --engine werift|mediasoup: the SFU engine (default werift, whatever `MEDIA_ENGINE` says, since the
 * choice changes what is measured). For Chromium listeners the delay and jitter are applied at the
 * SFU's sockets, which the shim reaches in werift (Node) and not in mediasoup's worker (C++): there
 * the Chromium runs have the loss only, and the report says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { summarize } from '@radiobroadcaster/cli';
import * as bench from './bench-support.js';
import { chromiumListeners } from './chromium-listeners.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    /** Joins per profile: runs enough runs of --listeners to make them (overrides --runs). */
    joins: { type: 'string' },
    listeners: { type: 'string', default: '20' },
    duration: { type: 'string', default: '30' },
    /** Listeners joining per second, and joins in flight at once. */
    ramp: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4' },
    /**
     * werift: the CLI's listeners (`load`); chromium: Debian's Chromium playing our player, one page
     * per listener (chromium-listeners.ts). Chromium cannot load the socket shim: its runs take the
     * delay and jitter at the SFU process's sockets instead (both directions of the handshake; the
     * SFU's media fast path bypasses it), the loss by nftables as always.
     */
    clients: { type: 'string', default: 'werift' },
    /** 0–9: namespaces, interfaces and addresses of their own, so two benchmarks can run at once. */
    'net-id': { type: 'string', default: '0' },
    /** Write each process's output (API, broadcaster, listeners) to this directory. */
    logs: { type: 'string' },
    /** Only the namespaces and veths, no impairment (a baseline). */
    baseline: { type: 'boolean', default: false },
    /** One custom profile instead of the two: "rttMs,jitterMs,lossPercent". */
    profile: { type: 'string' },
    engine: { type: 'string', default: 'werift' },
  },
});
const ENGINE = values.engine!;
if (ENGINE !== 'werift' && ENGINE !== 'mediasoup') {
  throw new Error(`--engine must be werift or mediasoup (got ${ENGINE})`);
}
const LISTENERS = Number(values.listeners);
const RUNS = values.joins ? Math.ceil(Number(values.joins) / LISTENERS) : Number(values.runs);
const DURATION_S = Number(values.duration);
const RAMP = Number(values.ramp);
const CONCURRENCY = Number(values.concurrency);
const CHROMIUM = values.clients === 'chromium';

const SHIM = join(bench.BENCH_PATHS.root, 'apps/cli/bench/dist/netem-shim.js');
/** The nftables loss rules, one copy with the SFU bench's listener host (built by npm run build:bench). */
const { lossRules } = (await import(
  join(bench.BENCH_PATHS.root, 'apps/sfu/bench/dist/bench/loss-rules.js')
)) as {
  lossRules: (dev: string, percent: number, table: { name: string; priority: number }) => string;
};

const NET_ID = Number(values['net-id']);
const ID = NET_ID ? String(NET_ID) : '';
const NS = { sfu: `rbnet${ID}-sfu`, pub: `rbnet${ID}-pub`, lis: `rbnet${ID}-lis` } as const;
const NET = `10.${201 + NET_ID}`;
/** veth pairs: [end in ns A, address, end in ns B, address]; mgmt lets this process reach the API. */
const LINKS = [
  {
    name: 'pub',
    a: NS.sfu,
    aIf: `rbn${ID}-sp`,
    aIp: `${NET}.1.1`,
    b: NS.pub,
    bIf: `rbn${ID}-ps`,
    bIp: `${NET}.1.2`,
  },
  {
    name: 'lis',
    a: NS.sfu,
    aIf: `rbn${ID}-sl`,
    aIp: `${NET}.2.1`,
    b: NS.lis,
    bIf: `rbn${ID}-ls`,
    bIp: `${NET}.2.2`,
  },
  {
    name: 'mgmt',
    a: NS.sfu,
    aIf: `rbn${ID}-sm`,
    aIp: `${NET}.9.2`,
    b: null,
    bIf: `rbn${ID}-ms`,
    bIp: `${NET}.9.1`,
  },
];
const API_PORT = 3000;

interface Profile {
  name: string;
  rttMs: number;
  jitterMs: number;
  lossPercent: number;
}
const custom = values.profile?.split(',').map(Number);
const PROFILES: Profile[] = custom
  ? [
      {
        name: `${custom[0]} ms RTT, ${custom[1]} ms jitter, ${custom[2]} % loss`,
        rttMs: custom[0]!,
        jitterMs: custom[1]!,
        lossPercent: custom[2]!,
      },
    ]
  : values.baseline
    ? [{ name: 'no impairment (baseline)', rttMs: 0, jitterMs: 0, lossPercent: 0 }]
    : [
        { name: '50 ms RTT, 10 ms jitter, 1 % loss', rttMs: 50, jitterMs: 10, lossPercent: 1 },
        { name: '150 ms RTT, 10 ms jitter, 3 % loss', rttMs: 150, jitterMs: 10, lossPercent: 3 },
        { name: '300 ms RTT, 20 ms jitter, 5 % loss', rttMs: 300, jitterMs: 20, lossPercent: 5 },
      ];

const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const inNs = (ns: string | null, cmd: string, args: string[]) =>
  ns ? sh('ip', ['netns', 'exec', ns, cmd, ...args]) : sh(cmd, args);

function skip(why: string): never {
  console.log(`bench:net skipped: ${why}`);
  process.exit(0);
}

function teardown(): void {
  for (const ns of Object.values(NS)) {
    try {
      sh('ip', ['netns', 'del', ns]);
    } catch {
      // not there
    }
  }
  try {
    sh('ip', ['link', 'del', `rbn${ID}-ms`]);
  } catch {
    // went with its namespace
  }
}

function setup(): void {
  teardown();
  for (const ns of Object.values(NS)) {
    sh('ip', ['netns', 'add', ns]);
    inNs(ns, 'ip', ['link', 'set', 'lo', 'up']);
  }
  for (const l of LINKS) {
    sh('ip', ['link', 'add', l.aIf, 'type', 'veth', 'peer', 'name', l.bIf]);
    sh('ip', ['link', 'set', l.aIf, 'netns', l.a]);
    if (l.b) sh('ip', ['link', 'set', l.bIf, 'netns', l.b]);
    inNs(l.a, 'ip', ['addr', 'add', `${l.aIp}/24`, 'dev', l.aIf]);
    inNs(l.a, 'ip', ['link', 'set', l.aIf, 'up']);
    inNs(l.b, 'ip', ['addr', 'add', `${l.bIp}/24`, 'dev', l.bIf]);
    inNs(l.b, 'ip', ['link', 'set', l.bIf, 'up']);
  }
}

/** netem on both ends of the publisher and listener links (each direction gets half the RTT). */
function applyNetem(p: Profile): void {
  const args = ['delay', `${p.rttMs / 2}ms`, `${p.jitterMs / 2}ms`, 'loss', `${p.lossPercent}%`];
  for (const l of LINKS.filter((x) => x.name !== 'mgmt')) {
    inNs(l.a, 'tc', ['qdisc', 'replace', 'dev', l.aIf, 'root', 'netem', ...args]);
    inNs(l.b, 'tc', ['qdisc', 'replace', 'dev', l.bIf, 'root', 'netem', ...args]);
  }
}

/**
 * Loss where both ends feel it: nftables in the client's namespace drops `lossPercent` % of the
 * datagrams and segments leaving and entering its veth (numgen random), so the SFU's handshake
 * flights, consent checks and media are lost on the way out exactly as the client's are on the way in.
 */
function applyNftLoss(p: Profile): void {
  for (const l of LINKS.filter((x) => x.name !== 'mgmt')) {
    const rules = lossRules(l.bIf, p.lossPercent, { name: 'rbnet', priority: -10 });
    execFileSync('ip', ['netns', 'exec', l.b!, 'nft', '-f', '-'], { input: rules });
  }
}

/** Datagrams and segments nftables dropped so far, in and out, on the client links. */
function nftDrops(): { in: number; out: number } {
  const total = { in: 0, out: 0 };
  for (const l of LINKS.filter((x) => x.name !== 'mgmt')) {
    const out = inNs(l.b, 'nft', ['list', 'table', 'inet', 'rbnet']);
    const counts = [...out.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    total.in += counts[0] ?? 0;
    total.out += counts[1] ?? 0;
  }
  return total;
}

function kernelHasNetem(): boolean {
  try {
    inNs(NS.pub, 'tc', ['qdisc', 'replace', 'dev', `rbn${ID}-ps`, 'root', 'netem', 'delay', '1ms']);
    inNs(NS.pub, 'tc', ['qdisc', 'del', 'dev', `rbn${ID}-ps`, 'root']);
    return true;
  } catch {
    return false;
  }
}

const run = (ns: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  bench.runNode(args, { env, wrapper: ['ip', 'netns', 'exec', ns] });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RunResult {
  firstAudioP50: number;
  firstAudioP95: number;
  latencyP50: number;
  latencyP95: number;
  /** % of 20 ms frames missing after recovery */
  lostPercent: number;
  /** % missing before recovery (asked for again) */
  rawLossPercent: number;
  recovered: number;
  connected: number;
  requested: number;
  /** Joins refused because the station was off air (its publisher's link had failed meanwhile). */
  offAir: number;
  firstAudioSamples: number[];
  /** Chromium: listeners that played the HTTP stream only (WebRTC had not connected by the end). */
  viaHttp?: number;
  /** Chromium: of `connected`, listeners that played the HTTP stream first, then switched to WebRTC. */
  upgraded?: number;
  failed?: number;
  /** Chromium: page → audio over WebRTC (ms); `firstAudioSamples` are page → first audio either way. */
  webrtcAudioSamples?: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  if (process.platform !== 'linux') skip('needs Linux network namespaces');
  if (process.getuid?.() !== 0) skip('needs root (ip netns, veth pairs, tc); run it as root');
  try {
    sh('ip', ['netns', 'list']);
  } catch {
    skip('`ip netns` is not available (apt-get install iproute2)');
  }
  try {
    setup();
  } catch (err) {
    teardown();
    skip(`could not create namespaces and veth pairs: ${(err as Error).message.split('\n')[0]}`);
  }
  const netem = kernelHasNetem();
  console.log(
    netem
      ? '# bench:net — tc netem on both ends of each veth\n'
      : '# bench:net — this kernel has no netem (CONFIG_NET_SCH_NETEM unset): loss by nftables on the\n' +
          '# clients’ veths (numgen random, both directions: the SFU’s side loses datagrams too); delay and\n' +
          (CHROMIUM
            ? ENGINE === 'werift'
              ? '# jitter at the SFU process’s sockets (Chromium cannot load apps/cli/bench/netem-shim.ts)\n'
              : '# jitter NOT APPLIED: Chromium cannot load the socket shim, and mediasoup’s worker (C++) is\n' +
                '# out of its reach at the SFU: these runs have the loss only\n'
            : '# jitter at the client processes’ sockets (apps/cli/bench/netem-shim.ts)\n'),
  );
  console.log(`# SFU engine: ${ENGINE} (--engine)\n`);
  const dataDir = mkdtempSync(join(tmpdir(), 'rb-bench-net-'));
  /** Chromium runs: the delay at the SFU's sockets, set per profile (netem-shim.ts reads it). */
  const sfuNetem = join(dataDir, 'sfu-netem');
  writeFileSync(sfuNetem, '');
  const api = run(
    NS.sfu,
    [...(CHROMIUM && !netem ? ['--import', SHIM] : []), bench.BENCH_PATHS.api],
    bench.benchApiEnv(dataDir, {
      ...(CHROMIUM ? { RB_NETEM_FILE: sfuNetem } : {}),
      PORT: String(API_PORT),
      HOST: '0.0.0.0',
      MEDIA_ENGINE: ENGINE,
      PUBLIC_URL: `http://${LINKS[1]!.aIp}:${API_PORT}`,
      RATE_LIMIT_PUBLISH_PER_MINUTE: '1000',
      // as the compose files and the Kubernetes manifests deploy it: one UDP and one TCP port
      RTC_UDP_PORT: '7882',
      RTC_TCP_PORT: '7881',
    }),
  );
  const mgmt = `http://${LINKS[2]!.aIp}:${API_PORT}`;
  try {
    for (let i = 0; ; i++) {
      if (api.child.exitCode !== null) throw new Error(`API exited:\n${api.out()}`);
      if (/listening on/.test(api.out())) break;
      if (i > 1800) throw new Error(`API did not start:\n${api.out()}`);
      await sleep(100);
    }
    const token = await bench.createBenchStation(mgmt);

    const results = new Map<Profile, RunResult[]>();
    for (const p of PROFILES) {
      if (netem) applyNetem(p);
      else applyNftLoss(p);
      const clientEnv = netem
        ? {}
        : { RB_NETEM: `delay=${p.rttMs / 2},jitter=${p.jitterMs / 2},loss=0` };
      const dropsBefore = netem ? null : nftDrops();
      const pre = netem || CHROMIUM ? [] : ['--import', SHIM];
      if (CHROMIUM && !netem) {
        writeFileSync(sfuNetem, `delay=${p.rttMs / 2},jitter=${p.jitterMs / 2},loss=0`);
      }
      console.log(`## ${p.name}\n`);
      const list: RunResult[] = [];
      for (let r = 1; r <= RUNS; r++) {
        const sent = join(dataDir, `sent-${p.rttMs}-${r}.ndjson`);
        // a broadcaster whose handshake fails over the lossy link starts again, as a person would
        let broadcast!: ReturnType<typeof run>;
        let live = false;
        for (let attempt = 1; ; attempt++) {
          broadcast = run(
            NS.pub,
            [...pre, ...bench.broadcastArgs(`http://${LINKS[0]!.aIp}:${API_PORT}`, token, sent)],
            clientEnv,
          );
          for (let i = 0; i < 300 && broadcast.child.exitCode === null; i++) {
            if ((await bench.benchStationStatus(mgmt)) === 'live') {
              live = true;
              break;
            }
            await sleep(100);
          }
          if (live) break;
          broadcast.child.kill('SIGTERM');
          await broadcast.done;
          console.log(
            `(broadcaster attempt ${attempt} failed: ${broadcast.out().trim().split('\n').at(-1)})`,
          );
          if (attempt >= 5) break;
        }
        if (!live) {
          console.log(`run ${r}: skipped, the broadcaster did not go live in 5 attempts`);
          continue;
        }
        if (CHROMIUM) {
          const c = await chromiumListeners({
            ns: NS.lis,
            apiUrl: `http://${LINKS[1]!.aIp}:${API_PORT}`,
            station: bench.BENCH_STATION,
            listeners: LISTENERS,
            ramp: RAMP,
            durationS: DURATION_S,
            dir: dataDir,
          });
          broadcast.child.kill('SIGTERM');
          await broadcast.done;
          const fa = summarize(c.firstAudioSamples);
          const wa = summarize(c.webrtcAudioSamples);
          const lossPct = (100 * c.packetsLost) / Math.max(1, c.packetsReceived + c.packetsLost);
          list.push({
            firstAudioP50: fa.p50 ?? NaN,
            firstAudioP95: fa.p95 ?? NaN,
            latencyP50: NaN,
            latencyP95: NaN,
            lostPercent: lossPct,
            rawLossPercent: c.concealedPercent,
            recovered: 0,
            connected: c.connected,
            requested: c.requested,
            offAir: Object.entries(c.errors)
              .filter(([why]) => /not live|offline/i.test(why))
              .reduce((a, [, n]) => a + n, 0),
            firstAudioSamples: c.firstAudioSamples,
            viaHttp: c.viaHttp,
            upgraded: c.upgraded,
            failed: c.failed,
            webrtcAudioSamples: c.webrtcAudioSamples,
          });
          console.log(
            `run ${r}: Chromium listeners over WebRTC ${c.connected}/${c.requested} (${c.upgraded} of them ` +
              `switched from the HTTP stream), over the HTTP stream only ${c.viaHttp}, failed ${c.failed} · ` +
              `page → first audio p50 ${fa.p50} ms p95 ${fa.p95} ms · page → WebRTC audio p50 ${wa.p50} ms ` +
              `p95 ${wa.p95} ms · packets lost after ` +
              `retransmission ${c.packetsLost} of ${c.packetsReceived + c.packetsLost} (${lossPct.toFixed(3)} %) · ` +
              `audio concealed ${c.concealedPercent.toFixed(2)} % · NACKs sent ${c.nacksSent} · ` +
              `jitter buffer ${c.jitterBufferMs.toFixed(0)} ms`,
          );
          for (const [why, n] of Object.entries(c.errors))
            console.log(`  did not play ×${n}: ${why}`);
          await sleep(1000);
          continue;
        }
        const load = run(
          NS.lis,
          [
            ...pre,
            ...bench.loadArgs(`http://${LINKS[1]!.aIp}:${API_PORT}`, {
              listeners: LISTENERS,
              rampS: RAMP,
              concurrency: CONCURRENCY,
              durationS: DURATION_S,
              sent,
            }),
          ],
          clientEnv,
        );
        await load.done;
        if (values.logs) {
          writeFileSync(join(values.logs, `load-${p.rttMs}-${r}.log`), load.out());
          writeFileSync(join(values.logs, `api.log`), api.out());
        }
        broadcast.child.kill('SIGTERM');
        await broadcast.done;
        const s = bench.loadSummary(load);
        const rec = s.recovery;
        const res: RunResult = {
          firstAudioP50: s.firstAudioMs.p50 ?? NaN,
          firstAudioP95: s.firstAudioMs.p95 ?? NaN,
          latencyP50: s.latency?.latencyMs.p50 ?? NaN,
          latencyP95: s.latency?.latencyMs.p95 ?? NaN,
          // never came, or came > 250 ms after the gap showed (past any sane playout point)
          lostPercent: rec.expected ? (100 * (rec.lost + rec.recoveredLate)) / rec.expected : NaN,
          rawLossPercent: rec.expected ? (100 * rec.nacked) / rec.expected : NaN,
          recovered: rec.recovered,
          connected: s.connected,
          requested: s.requested,
          offAir: Object.entries(s.errors)
            .filter(([why]) => why.includes('STATION_NOT_ACTIVE'))
            .reduce((a, [, n]) => a + n, 0),
          firstAudioSamples: s.firstAudioSamples ?? [],
        };
        list.push(res);
        console.log(
          `run ${r}: listeners ${res.connected}/${res.requested} · first audio p50 ${res.firstAudioP50} ms p95 ${res.firstAudioP95} ms · ` +
            `latency p50 ${res.latencyP50} ms p95 ${res.latencyP95} ms · frames missing ${rec.nacked} of ${rec.expected} ` +
            `(${res.rawLossPercent.toFixed(2)} %), recovered ${rec.recovered} (${rec.recoveredLate} > 250 ms late), ` +
            `lost after recovery ${rec.lost} + ${rec.recoveredLate} late (${res.lostPercent.toFixed(3)} %)`,
        );
        for (const [why, n] of Object.entries(s.errors)) console.log(`  join failed ×${n}: ${why}`);
        await sleep(1000);
      }
      if (dropsBefore) {
        const d = nftDrops();
        console.log(
          `nftables dropped ${d.in - dropsBefore.in} packets into and ${d.out - dropsBefore.out} out of the clients' namespaces`,
        );
      }
      results.set(p, list);
      console.log('');
    }

    console.log(`## Medians of ${RUNS} runs (${LISTENERS} listeners × ${DURATION_S} s each)\n`);
    for (const [p, list] of results) {
      const m = (k: keyof RunResult) => median(list.map((x) => x[k] as number));
      const sum = (k: 'connected' | 'requested' | 'offAir' | 'viaHttp' | 'upgraded' | 'failed') =>
        list.reduce((a, x) => a + (x[k] ?? 0), 0);
      const fa = summarize(list.flatMap((x) => x.firstAudioSamples));
      if (CHROMIUM) {
        const wa = summarize(list.flatMap((x) => x.webrtcAudioSamples ?? []));
        console.log(
          `${p.name}: Chromium joins ${sum('requested') - sum('offAir')}` +
            (sum('offAir') ? ` (${sum('offAir')} more refused: the station was off air)` : '') +
            `: over WebRTC ${sum('connected')} (${sum('upgraded')} of them switched from the HTTP stream), ` +
            `over the HTTP stream only ${sum('viaHttp')}, failed ${sum('failed') - sum('offAir')} · ` +
            `page → first audio (either way) p50 ${fa.p50} ms, p95 ${fa.p95} ms · ` +
            `page → WebRTC audio p50 ${wa.p50} ms, p95 ${wa.p95} ms · ` +
            `packets lost after retransmission (median of runs) ${m('lostPercent').toFixed(3)} %, ` +
            `audio concealed ${m('rawLossPercent').toFixed(2)} %`,
        );
        continue;
      }
      console.log(
        `${p.name}: joins connected ${sum('connected')} of ${sum('requested') - sum('offAir')}` +
          (sum('offAir')
            ? ` (${sum('offAir')} more refused: the station was off air, its publisher's link had failed)`
            : '') +
          (CHROMIUM ? `, ${sum('viaHttp')} more over the HTTP stream` : '') +
          ' · ' +
          `first audio over all joins p50 ${fa.p50} ms, p95 ${fa.p95} ms · medians of runs: first audio p50 ${m('firstAudioP50')} ms, p95 ${m('firstAudioP95')} ms · ` +
          `latency p50 ${m('latencyP50')} ms, p95 ${m('latencyP95')} ms · ` +
          `20 ms frames lost after recovery ${m('lostPercent').toFixed(3)} % ` +
          `(missing before recovery ${m('rawLossPercent').toFixed(2)} %)`,
      );
    }
    const a = results.get(PROFILES[0]!)!;
    if (PROFILES[0]!.rttMs !== 50 || PROFILES[0]!.lossPercent !== 1) return;
    const med = (k: keyof RunResult) => median(a.map((x) => x[k] as number));
    console.log(
      `\ngoals at 50 ms RTT: first audio p95 ≤ 700 ms: ${med('firstAudioP95') <= 700 ? 'met' : 'NOT met'}; ` +
        `latency p95 ≤ 250 ms: ${med('latencyP95') <= 250 ? 'met' : 'NOT met'}; ` +
        `≤ 0.1 % frames lost after recovery: ${med('lostPercent') <= 0.1 ? 'met' : 'NOT met'}`,
    );
  } finally {
    api.child.kill('SIGTERM');
    await Promise.race([api.done, sleep(5000)]);
    teardown();
  }
  process.exit(0);
}

await main();
