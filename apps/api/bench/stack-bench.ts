/**
 * The HTTP-stack spike (issue 25, item 9): what the polled public read costs on each stack, on one
 * core. Each server is pinned to core 0 (`taskset -c 0`), autocannon (50 connections) to core 1; each
 * target warmed up 2 s, then measured `--runs` times for `--duration` s; medians.
 * Targets, all answering the same station JSON:
 *  - a bare Node HTTP server (the reference);
 *  - the API as it runs (Express + Nest, embedded PGlite): the read on its fast lane
 *    (`/api/stations/{id}`), and the same read through Express + Nest (`/api/stations/{id}/`, the
 *    spelling the lane leaves to Nest);
 *  - the same small Nest application (stack-server.ts: guard, pipe, helmet's headers, ETag; no logger)
 *    on `@nestjs/platform-express` and on `@nestjs/platform-fastify`.
 * `npm run bench:stack`. Options: --runs 3 --duration 10 --connections 50
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  cpuSeconds,
  fmt,
  freePort,
  median,
  seedStation,
  spawnNode,
  startApi,
  table,
  waitFor,
} from './bench-support.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
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
const STACK_SERVER = join(dirname(fileURLToPath(import.meta.url)), 'stack-server.js');

interface Run {
  rps: number;
  p99: number;
  errors: number;
  cpuUs: number;
}

async function autocannon(url: string, serverPid: number, seconds: number): Promise<Run> {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), url];
  const before = cpuSeconds(serverPid);
  const child = spawnNode(args, { core: LOAD_CORE, output: 'pipe' });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const cpu = cpuSeconds(serverPid) - before;
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  };
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    cpuUs: r.requests.total ? (cpu * 1e6) / r.requests.total : NaN,
  };
}

async function measure(
  name: string,
  url: string,
  pid: number,
): Promise<{ name: string; runs: Run[] }> {
  const check = await fetch(url);
  if (!check.ok) throw new Error(`${name}: ${url} answered ${check.status}`);
  process.stdout.write(`${name}: warm-up`);
  await autocannon(url, pid, 2);
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await autocannon(url, pid, DURATION);
    runs.push(run);
    process.stdout.write(` · ${fmt(run.rps)} req/s`);
  }
  process.stdout.write('\n');
  return { name, runs };
}

/** A server script pinned to the server core, measured at `path`, then stopped. */
async function measureChild(name: string, args: string[], port: number, path: string) {
  const child = spawnNode(args, { core: SERVER_CORE });
  try {
    await waitFor(`http://127.0.0.1:${port}${path}`);
    return await measure(name, `http://127.0.0.1:${port}${path}`, child.pid!);
  } finally {
    child.kill();
    await new Promise((r) => child.once('exit', r));
  }
}

async function main(): Promise<void> {
  console.log(
    `HTTP-stack spike: server on core ${SERVER_CORE}, autocannon ${CONNECTIONS} connections on core ` +
      `${LOAD_CORE}, ${RUNS} × ${DURATION} s per target after a 2 s warm-up; medians.\n`,
  );
  const results: { name: string; runs: Run[] }[] = [];
  const api = await startApi({}, SERVER_CORE);
  let body: string;
  let id: string;
  try {
    id = (await seedStation(api.url)).stationId;
    const read = `${api.url}/api/stations/${id}`;
    body = await (await fetch(read)).text();
    results.push(await measure('API: fast lane', read, api.pid));
    results.push(await measure('API: Express + Nest (as today)', `${read}/`, api.pid));
  } finally {
    await api.stop();
  }
  const bodyFile = join(mkdtempSync(join(tmpdir(), 'rb-stack-')), 'station.json');
  writeFileSync(bodyFile, body);
  const path = `/api/stations/${id}`;

  const barePort = await freePort();
  const bare = `
    const body = ${JSON.stringify(body)};
    const length = Buffer.byteLength(body);
    require('node:http').createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', length);
      res.end(body);
    }).listen(${barePort}, '127.0.0.1');`;
  results.unshift(await measureChild('bare Node HTTP server', ['-e', bare], barePort, path));
  for (const adapter of ['express', 'fastify']) {
    const port = await freePort();
    results.push(
      await measureChild(
        `small Nest app on ${adapter === 'express' ? 'Express' : 'Fastify'}`,
        [STACK_SERVER, '--adapter', adapter, '--port', String(port), '--body-file', bodyFile],
        port,
        path,
      ),
    );
  }

  const bareRps = median(results[0]!.runs.map((r) => r.rps));
  console.log(
    `\n${table(
      ['target', 'req/s', 'p99 ms', 'server CPU µs/req', 'bare/this', 'runs (req/s)', 'errors'],
      results.map(({ name, runs }) => {
        const rps = median(runs.map((r) => r.rps));
        return [
          name,
          fmt(rps),
          fmt(median(runs.map((r) => r.p99))),
          fmt(median(runs.map((r) => r.cpuUs)), 1),
          `${fmt(bareRps / rps, 1)}×`,
          runs.map((r) => fmt(r.rps)).join(' / '),
          fmt(runs.reduce((n, r) => n + r.errors, 0)),
        ];
      }),
    )}`,
  );
  console.log('\nGoal on the polled read: ≥ 5,000 req/s on one core, within 3× of bare Node.');
  for (const { name, runs } of results.slice(1)) {
    const rps = median(runs.map((r) => r.rps));
    console.log(
      `  ${name}: ≥ 5,000 req/s ${rps >= 5000 ? 'yes' : 'NO'}, within 3× ${bareRps / rps <= 3 ? 'yes' : 'NO'}`,
    );
  }
}

await main();
