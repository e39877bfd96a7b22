/**
 * `npm run bench:recording`: what recording one live station costs. The API runs pinned to core 0
 * (`taskset`), our CLI publishes a 440 Hz tone over WHIP from core 1. Each run measures the API's
 * CPU time over the same window twice, with the station recorded and without, and the recording
 * file's growth; the table gives the medians of the runs.
 *
 *   npm run bench:recording -- --runs 3 --seconds 30
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  cpuSeconds,
  fmt,
  median,
  ROOT,
  scratchDatabase,
  seedStation,
  spawnNode,
  startApi,
  table,
} from './bench-support.js';

const CLI_MAIN = join(ROOT, 'apps/cli/dist/main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '30' },
    pg: {
      type: 'string',
      default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    },
  },
});
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);

/** The CLI broadcasting a tone (pinned to core 1); resolves once it is live. */
async function broadcast(server: string, station: string, token: string) {
  const child = spawnNode(
    [
      CLI_MAIN,
      'broadcast',
      '--server',
      server,
      '--station',
      station,
      '--token',
      token,
      '--tone',
      '440',
    ],
    { core: 1, output: 'pipe' },
  );
  let out = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the CLI did not go live:\n${out}`)), 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
      if (/^live \(connected/m.test(out)) {
        clearTimeout(timer);
        ok();
      }
    });
  });
  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
}

interface Rec {
  id: string;
  status: string;
  durationSeconds: number;
}

interface Run {
  cpuRecording: number;
  cpuPlain: number;
  mbPerHour: number;
}

async function oneRun(): Promise<Run> {
  const db = await scratchDatabase(values.pg);
  const recordings = mkdtempSync(join(tmpdir(), 'rb-bench-rec-'));
  const api = await startApi(
    { DATABASE_URL: db.url, RECORDINGS_DIR: recordings, PUBLISHER_GRACE_MS: '500' },
    0,
  );
  try {
    const s = await seedStation(api.url);
    const station = `${s.username}/${s.slug}`;
    const post = (path: string, body: unknown) =>
      fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { ...s.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const recordingsOf = async () =>
      (await (
        await fetch(`${api.url}/api/stations/${s.stationId}/recordings`, { headers: s.auth })
      ).json()) as Rec[];

    /** CPU % of one core the API used over the window, while the station is on air. */
    const window = async (): Promise<number> => {
      await sleep(3000); // settle after going live
      const c0 = cpuSeconds(api.pid);
      const t0 = performance.now();
      await sleep(SECONDS * 1000);
      return ((cpuSeconds(api.pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
    };

    await post('/api/stations/recording', { stationId: s.stationId, enabled: true });
    let stop = await broadcast(api.url, station, s.streamToken);
    let rec: Rec | undefined;
    for (let i = 0; i < 100 && rec?.status !== 'recording'; i++) {
      [rec] = await recordingsOf();
      await sleep(100);
    }
    if (rec?.status !== 'recording') throw new Error('the recording did not start');
    const cpuRecording = await window();
    await stop();
    // Disk per hour of audio recorded (what was received, whatever the machine's load).
    let done: Rec | undefined;
    for (let i = 0; i < 100 && done?.status !== 'ready'; i++) {
      [done] = await recordingsOf();
      await sleep(100);
    }
    if (!done || done.status !== 'ready') throw new Error('the recording did not finish');
    const onDisk = statSync(join(recordings, s.stationId, `${done.id}.ogg`)).size;
    const mbPerHour = (onDisk / 1e6 / done.durationSeconds) * 3600;
    await sleep(1500);

    await post('/api/stations/recording', { stationId: s.stationId, enabled: false });
    stop = await broadcast(api.url, station, s.streamToken);
    const cpuPlain = await window();
    await stop();
    return { cpuRecording, cpuPlain, mbPerHour };
  } finally {
    await api.stop();
    await db.drop();
  }
}

const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await oneRun();
  runs.push(r);
  console.log(
    `run ${i + 1}: API ${fmt(r.cpuRecording, 2)} % of a core recording, ${fmt(r.cpuPlain, 2)} % not; ` +
      `${fmt(r.mbPerHour, 1)} MB/h`,
  );
}
const m = (f: (r: Run) => number) => median(runs.map(f));
console.log(
  `\nRecording one live station (CLI tone, Opus as sent), API pinned to core 0; medians of ${RUNS} runs of ${SECONDS} s\n`,
);
console.log(
  table(
    ['', 'API CPU (% of a core)', 'disk (MB per hour)'],
    [
      [
        'broadcast, recorded',
        fmt(
          m((r) => r.cpuRecording),
          2,
        ),
        fmt(
          m((r) => r.mbPerHour),
          1,
        ),
      ],
      [
        'broadcast, not recorded',
        fmt(
          m((r) => r.cpuPlain),
          2,
        ),
        '0',
      ],
      [
        'cost of recording',
        fmt(
          m((r) => r.cpuRecording - r.cpuPlain),
          2,
        ),
        fmt(
          m((r) => r.mbPerHour),
          1,
        ),
      ],
    ],
  ),
);
process.exit(0);
