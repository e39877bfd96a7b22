/**
 * `npm run bench:http`: HTTP listening and Icecast ingest on this machine.
 *
 * The API runs pinned to core 0 (`taskset -c 0`) on PostgreSQL; this process (the load generator:
 * the Icecast source, the HTTP listeners, the WebRTC listeners) is pinned to core 1 by the npm
 * script. The source is an Icecast `PUT` of Ogg/Opus, one 20 ms packet per page, whose payloads
 * carry their index, so every listener's latency is measured against the send time.
 *
 * - HTTP listeners held: raw keep-reading connections to `/listen/…ogg`, added in steps; a step
 *   holds when no listener went more than 1 s without data; CPU of the server per 1,000 listeners.
 * - Source → HTTP listener latency p50/p95 (sampled listeners), Icecast source → WebRTC listener
 *   (CLI WHEP listeners) latency p50/p95.
 * - CPU of one MP3 source's decoding and Opus encoding (the ingest's codec, in a pinned process).
 * - CPU of one station's MP3 encoder for `/listen/….mp3` (Opus decode, LAME, frame cutting; shared by
 *   all the station's MP3 listeners), in a pinned process.
 *
 * Options: --runs 3 --steps 1000,4000,8000,12000,16000 --hold 5 (s) --pg <admin URL>
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OggOpusWriter } from '@radiobroadcaster/audio';
import {
  type ApiProcess,
  cpuSeconds,
  fmt,
  median,
  quantile,
  ROOT,
  scratchDatabase,
  seedStation,
  startApi,
  table,
} from './bench-support.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    steps: { type: 'string', default: '1000,4000,8000,12000,16000' },
    hold: { type: 'string', default: '5' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'webrtc-listeners': { type: 'string', default: '5' },
  },
});
const RUNS = Number(values.runs);
const STEPS = values.steps.split(',').map(Number);
const HOLD_S = Number(values.hold);
const SERVER_CORE = 0;

const now = () => performance.timeOrigin + performance.now();

/** A fake Opus packet: TOC 0xF8 (CELT, 20 ms, one frame), then its index; never decoded. */
function packet(index: number): Buffer {
  const b = Buffer.alloc(120, 0x55);
  b[0] = 0xf8;
  b.writeUInt32BE(index, 1);
  return b;
}

/** An Icecast source (`PUT`, Ogg/Opus) sending one packet every 20 ms; remembers send times. */
async function startSource(port: number, mount: string, key: string) {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  socket.setNoDelay(true);
  socket.write(
    `PUT ${mount} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/ogg\r\n` +
      `Authorization: Basic ${Buffer.from(`source:${key}`).toString('base64')}\r\n\r\n`,
  );
  const writer = new OggOpusWriter({ vendor: 'bench' });
  socket.write(writer.headers());
  const sentAt: number[] = [];
  let index = 0;
  const start = now();
  let timer: NodeJS.Timeout;
  const tick = () => {
    // catch up after a stall of this (loaded) process: the schedule is absolute
    while (start + index * 20 <= now()) {
      sentAt[index] = now();
      socket.write(writer.page(packet(index), 960).bytes);
      index++;
    }
    timer = setTimeout(tick, Math.max(1, start + index * 20 - now()));
  };
  tick();
  socket.on('error', () => undefined);
  return {
    sentAt,
    stop: () => {
      clearTimeout(timer);
      socket.destroy();
    },
  };
}

/** N HTTP listeners on raw sockets: bytes in, the last time each got data, sampled latencies. */
class HttpListeners {
  readonly sockets: { socket: Socket; last: number; sampled: boolean }[] = [];
  readonly latencies: number[] = [];
  failed = 0;
  /** Why attempts failed, by reason (shown once per run). */
  readonly reasons = new Map<string, number>();
  private reason(r: string): void {
    this.reasons.set(r, (this.reasons.get(r) ?? 0) + 1);
  }
  constructor(
    private readonly port: number,
    private readonly path: string,
    private readonly sentAt: number[],
  ) {}

  /** Opens listeners until `n` more are connected; one that fails is retried (as players do), twice. */
  async add(n: number, sampleEvery = 100): Promise<void> {
    const target = this.sockets.length + n;
    for (let round = 0; round < 3 && this.sockets.length < target; round++) {
      const missing = target - this.sockets.length;
      const batch: Promise<void>[] = [];
      for (let i = 0; i < missing; i++) {
        batch.push(this.open((this.sockets.length + i) % sampleEvery === 0));
        if (batch.length >= 100) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
    }
  }

  private open(sample: boolean): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      const entry = { socket, last: now(), sampled: sample };
      let headDone = false;
      // a server too busy to answer within 30 s: that attempt failed
      const timer = setTimeout(() => {
        if (headDone) return;
        headDone = true;
        this.failed++;
        this.reason('no answer within 30 s');
        socket.destroy();
        resolve();
      }, 30_000);
      socket.on('connect', () => {
        socket.write(`GET ${this.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\n\r\n`);
      });
      socket.on('data', (d: Buffer) => {
        entry.last = now();
        if (!headDone) {
          headDone = true;
          clearTimeout(timer);
          if (!d.toString('latin1', 0, 12).includes(' 200')) {
            this.failed++;
            this.reason(d.toString('latin1', 0, 12));
            socket.destroy();
          } else {
            this.sockets.push(entry);
          }
          resolve();
          return; // the head chunk (and its burst) is not measured
        }
        if (entry.sampled) this.measure(d);
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (headDone) return;
        this.reason(err.code ?? err.message);
        headDone = true;
        clearTimeout(timer);
        this.failed++;
        resolve();
      });
    });
  }

  /** Pages are found by their capture pattern (a read may hold several, or part of one). */
  private measure(d: Buffer): void {
    const at = now();
    let pos = d.indexOf('OggS');
    while (pos >= 0) {
      const nSeg = d[pos + 26];
      if (nSeg !== undefined && d[pos + 27 + nSeg] === 0xf8) {
        const idx = d.readUInt32BE(pos + 27 + nSeg + 1);
        const sent = this.sentAt[idx];
        if (sent !== undefined) this.latencies.push(at - sent);
      }
      pos = d.indexOf('OggS', pos + 4);
    }
  }

  /** Listeners that got nothing for more than `ms`. */
  starved(ms: number): number {
    const t = now();
    let n = 0;
    for (const s of this.sockets) if (t - s.last > ms) n++;
    return n;
  }

  close(): void {
    for (const s of this.sockets) s.socket.destroy();
    this.sockets.length = 0;
  }
}

async function webrtcLatency(api: ApiProcess, stationId: string, sentAt: number[], n: number) {
  const { ApiClient, WhepListener } = await import(join(ROOT, 'apps/cli/dist/index.js') as string);
  const latencies: number[] = [];
  const listeners = [];
  for (let i = 0; i < n; i++) {
    const l = new WhepListener({
      api: new ApiClient(api.url),
      stationId,
      record: (p: { payload: Buffer; receivedAt: number }) => {
        if (p.payload[0] !== 0xf8) return;
        const sent = sentAt[p.payload.readUInt32BE(1)];
        if (sent !== undefined) latencies.push(p.receivedAt - sent);
      },
    });
    await l.start();
    listeners.push(l);
  }
  await new Promise((r) => setTimeout(r, 6000));
  for (const l of listeners) await l.stop();
  return latencies.sort((a, b) => a - b);
}

/** CPU of one MP3 source's decode + Opus encode (the ingest's settings), in a pinned process. */
function mp3Cpu(): number {
  const dir = mkdtempSync(join(tmpdir(), 'rb-bench-mp3-'));
  const file = join(dir, 'source.mp3');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=44100',
    '-t',
    '30',
    '-ac',
    '2',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '128k',
    file,
  ]);
  const script = `
    import { readFileSync } from 'node:fs';
    import { Mp3ToOpus } from '${join(ROOT, 'libs/audio/dist/index.js')}';
    const data = readFileSync('${file}');
    const c = await Mp3ToOpus.create({ complexity: 5 });
    const t0 = process.cpuUsage();
    let packets = 0;
    for (let i = 0; i < data.length; i += 4096) packets += (await c.push(data.subarray(i, i + 4096))).length;
    const u = process.cpuUsage(t0);
    console.log(JSON.stringify({ cpuMs: (u.user + u.system) / 1000, audioMs: packets * 20 }));
  `;
  return pinnedCpu(script);
}

/** CPU of one station's MP3 encoder for HTTP listeners (the stream's settings), in a pinned process. */
function mp3ListenCpu(): number {
  const script = `
    import { Mp3Frames, OpusEncoder, OpusToMp3 } from '${join(ROOT, 'libs/audio/dist/index.js')}';
    const enc = new OpusEncoder({ channels: 2, bitrate: 128000, complexity: 5 });
    const pcm = new Int16Array(960 * 2);
    const packets = [];
    for (let k = 0, t = 0; k < 1500; k++) {
      for (let i = 0; i < 960; i++, t++) pcm[2 * i] = pcm[2 * i + 1] = Math.round(8000 * Math.sin(2 * Math.PI * 440 * t / 48000));
      packets.push(enc.encode(pcm));
    }
    const mp3 = await OpusToMp3.create({ bitrate: 128 });
    const frames = new Mp3Frames();
    const t0 = process.cpuUsage();
    for (const p of packets) frames.push(mp3.push(p));
    const u = process.cpuUsage(t0);
    console.log(JSON.stringify({ cpuMs: (u.user + u.system) / 1000, audioMs: packets.length * 20 }));
  `;
  return pinnedCpu(script);
}

/** CPU (% of a core) of a module script that prints `{ cpuMs, audioMs }`, pinned to the server's core. */
function pinnedCpu(script: string): number {
  const out = execFileSync('taskset', [
    '-c',
    String(SERVER_CORE),
    process.execPath,
    '--input-type=module',
    '-e',
    script,
  ]).toString();
  const { cpuMs, audioMs } = JSON.parse(out.trim().split('\n').at(-1)!) as {
    cpuMs: number;
    audioMs: number;
  };
  return (cpuMs / audioMs) * 100;
}

interface RunResult {
  held: number;
  /** Server CPU (% of a core) per 1,000 listeners, above the baseline (source, no listener). */
  cpuPer1000: number;
  /** Server CPU (% of a core) at the largest step held. */
  cpuAtHeld: number;
  httpP50: number;
  httpP95: number;
  rtcP50: number;
  rtcP95: number;
  steps: string[][];
}

async function run(pgAdmin: string): Promise<RunResult> {
  const db = await scratchDatabase(pgAdmin);
  const api = await startApi(
    {
      DATABASE_URL: db.url,
      LOG_LEVEL: 'error',
      RATE_LIMIT_JOIN_PER_MINUTE: '0',
      RATE_LIMIT_PUBLISH_PER_MINUTE: '0',
      RATE_LIMIT_AUTH_PER_MINUTE: '0',
      MAX_LISTENERS_PER_IP: '0',
      VIEWER_COUNT_PER_ADDRESS: '0',
    },
    SERVER_CORE,
  );
  const source: { stop: () => void; sentAt: number[] }[] = [];
  let listeners: HttpListeners | null = null;
  try {
    const seeded = await seedStation(api.url);
    const settings = (await (
      await fetch(`${api.url}/api/stations/${seeded.stationId}/broadcast-settings`, {
        headers: seeded.auth,
      })
    ).json()) as { streamKey: string; icecast: { mount: string } };
    const port = Number(new URL(api.url).port);
    const src = await startSource(port, settings.icecast.mount, settings.streamKey);
    source.push(src);
    for (let i = 0; i < 100; i++) {
      const st = (await (await fetch(`${api.url}/api/stations/${seeded.stationId}`)).json()) as {
        status: string;
      };
      if (st.status === 'live') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // the ingest's pacer releases its start-up backlog within a few seconds: measure after it
    await new Promise((r) => setTimeout(r, 5000));
    const rtc = await webrtcLatency(
      api,
      seeded.stationId,
      src.sentAt,
      Number(values['webrtc-listeners']),
    );

    listeners = new HttpListeners(
      port,
      `/listen/${seeded.username}/${seeded.slug}.ogg`,
      src.sentAt,
    );
    let held = 0;
    let cpuPer1000 = NaN;
    let cpuAtHeld = NaN;
    const steps: string[][] = [];
    // the server's CPU with the source and no HTTP listener: what listeners add is measured above it
    const base0 = cpuSeconds(api.pid);
    const b0 = now();
    await new Promise((r) => setTimeout(r, HOLD_S * 1000));
    const baseCpu = ((cpuSeconds(api.pid) - base0) / ((now() - b0) / 1000)) * 100;
    steps.push(['0', '0', '0', '', '0', fmt(baseCpu, 1), '', '', 'baseline']);
    for (const target of STEPS) {
      const rampFrom = listeners.sockets.length;
      const ramp0 = now();
      await listeners.add(target - listeners.sockets.length);
      const joinsPerS = (listeners.sockets.length - rampFrom) / ((now() - ramp0) / 1000);
      await new Promise((r) => setTimeout(r, 1500)); // settle
      listeners.latencies.length = 0;
      const cpu0 = cpuSeconds(api.pid);
      const gen0 = process.cpuUsage();
      const t0 = now();
      let starved = 0;
      while (now() - t0 < HOLD_S * 1000) {
        await new Promise((r) => setTimeout(r, 250));
        starved = Math.max(starved, listeners.starved(1000));
      }
      const cpuPct = ((cpuSeconds(api.pid) - cpu0) / ((now() - t0) / 1000)) * 100;
      const gen = process.cpuUsage(gen0);
      const genPct = ((gen.user + gen.system) / 1000 / (now() - t0)) * 100;
      const stepLatency = [...listeners.latencies].sort((a, b) => a - b);
      const connected = listeners.sockets.length;
      const ok = starved === 0 && connected >= target * 0.99;
      steps.push([
        fmt(target),
        fmt(connected),
        fmt(listeners.failed),
        fmt(joinsPerS),
        fmt(starved),
        fmt(cpuPct, 1),
        fmt(genPct, 1),
        `${fmt(quantile(stepLatency, 0.5))} / ${fmt(quantile(stepLatency, 0.95))}`,
        ok ? 'held' : 'NOT held',
      ]);
      if (!ok) break;
      held = connected;
      cpuAtHeld = cpuPct;
      cpuPer1000 = (cpuPct - baseCpu) / (connected / 1000);
      if (cpuPct > 90) break;
    }
    if (listeners.reasons.size)
      console.log('failed attempts:', Object.fromEntries(listeners.reasons));
    const http = [...listeners.latencies].sort((a, b) => a - b);
    return {
      held,
      cpuPer1000,
      cpuAtHeld,
      httpP50: quantile(http, 0.5),
      httpP95: quantile(http, 0.95),
      rtcP50: quantile(rtc, 0.5),
      rtcP95: quantile(rtc, 0.95),
      steps,
    };
  } finally {
    listeners?.close();
    for (const s of source) s.stop();
    await api.stop();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const pinned = (() => {
    try {
      return readFileSync(`/proc/${process.pid}/status`, 'utf8').match(
        /Cpus_allowed_list:\s*(\S+)/,
      )?.[1];
    } catch {
      return undefined;
    }
  })();
  console.log(
    `bench:http — API pinned to core ${SERVER_CORE}; load generator on cores ${pinned ?? '?'}; ${RUNS} runs, ${HOLD_S} s per step`,
  );
  const results: RunResult[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run(values.pg);
    results.push(r);
    console.log(`\nrun ${i + 1}`);
    console.log(
      table(
        [
          'listeners',
          'connected',
          'failed attempts',
          'joins/s',
          'starved>1s',
          'server CPU %',
          'load generator CPU %',
          'latency p50 / p95 ms',
          '',
        ],
        r.steps,
      ),
    );
  }
  const mp3 = [mp3Cpu(), mp3Cpu(), mp3Cpu()];
  const mp3Listen = [mp3ListenCpu(), mp3ListenCpu(), mp3ListenCpu()];
  const m = (f: (r: RunResult) => number) => median(results.map(f));
  console.log(`\nmedians of ${RUNS} runs`);
  console.log(
    table(
      ['figure', 'value'],
      [
        ['HTTP listeners held (none starved > 1 s)', fmt(m((r) => r.held))],
        [
          'server CPU at that step (% of a core)',
          fmt(
            m((r) => r.cpuAtHeld),
            1,
          ),
        ],
        [
          'server CPU per 1,000 HTTP listeners above the idle source (% of a core)',
          fmt(
            m((r) => r.cpuPer1000),
            2,
          ),
        ],
        ['HTTP listeners per core (at 100 %)', fmt(100_000 / m((r) => r.cpuPer1000))],
        ['source → HTTP listener latency p50 (ms)', fmt(m((r) => r.httpP50))],
        ['source → HTTP listener latency p95 (ms)', fmt(m((r) => r.httpP95))],
        ['Icecast source → WebRTC listener latency p50 (ms)', fmt(m((r) => r.rtcP50))],
        ['Icecast source → WebRTC listener latency p95 (ms)', fmt(m((r) => r.rtcP95))],
        ['one MP3 source, decode + Opus encode (% of a core)', fmt(median(mp3), 1)],
        [
          "one station's MP3 encoder for /listen/….mp3, Opus decode + MP3 encode (% of a core)",
          fmt(median(mp3Listen), 1),
        ],
      ],
    ),
  );
}

await main();
