/**
 * `npm run bench:api`: requests per second the API answers on one core.
 * The server runs pinned to core 0 (`taskset -c 0`), autocannon (the npm load generator, 50
 * connections) pinned to core 1; each target is warmed up, then measured several times and the
 * medians reported: the station read every listener polls (200, and 304 with `If-None-Match`),
 * and `/health/live`, on embedded PGlite and on PostgreSQL, next to a bare Node HTTP server
 * answering the same JSON as the reference.
 * Options: --runs 3 --duration 10 (seconds) --connections 50 --pg <admin URL> --skip-postgres
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type ApiProcess,
  cpuSeconds,
  fmt,
  median,
  scratchDatabase,
  seedStation,
  spawnNode,
  startApi,
  table,
  waitFor,
  freePort,
} from './bench-support.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    pg: {
      type: 'string',
      default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    },
    'skip-postgres': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SERVER_CORE = 0;
const LOAD_CORE = 1;

const AUTOCANNON = join(
  dirname(createRequire(import.meta.url).resolve('autocannon/package.json')),
  'autocannon.js',
);

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU per request, µs. */
  cpuUs: number;
}

interface Result {
  name: string;
  runs: Run[];
}

/** One autocannon run against `url`; the server's CPU is read around it. */
async function autocannon(
  url: string,
  serverPid: number,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<Run> {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const before = cpuSeconds(serverPid);
  const child = spawnNode(args, { core: LOAD_CORE, output: 'pipe' });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const cpu = cpuSeconds(serverPid) - before;
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  };
  const expected304 = Object.keys(headers).length > 0;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    // 304s count as non-2xx for autocannon; they are the point of that target.
    errors: r.errors + r.timeouts + (expected304 ? 0 : r.non2xx),
    cpuUs: r.requests.total ? (cpu * 1e6) / r.requests.total : NaN,
  };
}

async function measure(
  name: string,
  url: string,
  pid: number,
  headers?: Record<string, string>,
): Promise<Result> {
  process.stdout.write(`${name}: warm-up`);
  await autocannon(url, pid, 2, headers);
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await autocannon(url, pid, DURATION, headers);
    runs.push(run);
    process.stdout.write(` · ${fmt(run.rps)} req/s p99 ${run.p99} ms`);
  }
  process.stdout.write('\n');
  return { name, runs };
}

/**
 * Health, station 200 and station 304 against one running API; `viaNest` adds the station read
 * through Express and Nest (the trailing-slash spelling the fast lane leaves to them).
 */
async function measureApi(label: string, api: ApiProcess, viaNest = false): Promise<Result[]> {
  const seeded = await seedStation(api.url);
  const stationUrl = `${api.url}/api/stations/${seeded.stationId}`;
  const first = await fetch(stationUrl);
  const etag = first.headers.get('etag');
  if (!first.ok || !etag) throw new Error(`station read: ${first.status}, ETag ${etag}`);
  const check = await fetch(stationUrl, { headers: { 'If-None-Match': etag } });
  if (check.status !== 304) throw new Error(`conditional read answered ${check.status}, not 304`);
  const results = [
    await measure(`${label}: GET /health/live`, `${api.url}/health/live`, api.pid),
    await measure(`${label}: GET /api/stations/{id} (200)`, stationUrl, api.pid),
    await measure(`${label}: GET /api/stations/{id} (304)`, stationUrl, api.pid, {
      'If-None-Match': etag,
    }),
  ];
  if (viaNest) {
    results.push(
      await measure(`${label}: the same read through Express + Nest`, `${stationUrl}/`, api.pid),
    );
  }
  return results;
}

/** The reference: Node's own HTTP server answering `body` with the same content type. */
async function bareNode(body: string): Promise<Result> {
  const port = await freePort();
  const script = `
    const body = ${JSON.stringify(body)};
    const length = Buffer.byteLength(body);
    require('node:http').createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', length);
      res.end(body);
    }).listen(${port}, '127.0.0.1');`;
  const child = spawnNode(['-e', script], { core: SERVER_CORE });
  try {
    await waitFor(`http://127.0.0.1:${port}/`);
    return await measure(
      'bare Node HTTP server, same JSON',
      `http://127.0.0.1:${port}/`,
      child.pid!,
    );
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  console.log(
    `API benchmark: server on core ${SERVER_CORE}, autocannon ${CONNECTIONS} connections on core ${LOAD_CORE}, ` +
      `${RUNS} × ${DURATION} s per target after a 2 s warm-up; medians.\n`,
  );
  const results: Result[] = [];

  const embedded = await startApi({}, SERVER_CORE);
  let body: string;
  try {
    results.push(...(await measureApi('embedded PGlite', embedded, true)));
    const any = (await (await fetch(`${embedded.url}/api/stations/discover`)).json()) as {
      stations: { id: string }[];
    };
    body = await (await fetch(`${embedded.url}/api/stations/${any.stations[0]!.id}`)).text();
  } finally {
    await embedded.stop();
  }
  results.unshift(await bareNode(body));

  if (!values['skip-postgres']) {
    let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
    try {
      db = await scratchDatabase(values.pg);
    } catch (err) {
      console.log(`PostgreSQL skipped (${values.pg}: ${(err as Error).message})`);
    }
    if (db) {
      const api = await startApi({ DATABASE_URL: db.url }, SERVER_CORE);
      try {
        results.push(...(await measureApi('PostgreSQL', api)));
      } finally {
        await api.stop();
        await db.drop();
      }
    }
  }

  const bare = median(results[0]!.runs.map((r) => r.rps));
  const rows = results.map(({ name, runs }) => {
    const rps = median(runs.map((r) => r.rps));
    return [
      name,
      fmt(rps),
      fmt(median(runs.map((r) => r.p50))),
      fmt(median(runs.map((r) => r.p99))),
      fmt(median(runs.map((r) => r.cpuUs)), 1),
      `${fmt(bare / rps, 1)}×`,
      fmt(runs.reduce((n, r) => n + r.errors, 0)),
    ];
  });
  console.log(
    `\n${table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'bare/this', 'errors'],
      rows,
    )}`,
  );

  console.log('\nGoals:');
  for (const { name, runs } of results.slice(1)) {
    const rps = median(runs.map((r) => r.rps));
    const p99 = median(runs.map((r) => r.p99));
    if (name.includes('Express + Nest')) continue;
    const station = name.includes('/api/stations/');
    const goals = [`within 3× of bare Node: ${bare / rps <= 3 ? 'yes' : 'NO'}`];
    if (station) {
      goals.push(`≥ 5,000 req/s: ${rps >= 5000 ? 'yes' : 'NO'}`);
      goals.push(`p99 < 20 ms: ${p99 < 20 ? 'yes' : 'NO'}`);
    }
    console.log(`  ${name}: ${goals.join(', ')}`);
  }
}

await main();
