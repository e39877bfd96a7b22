/**
 * What a person running `npm start` reads: in a terminal, short coloured lines (pino-pretty: time,
 * level, message; no pid or hostname); with stdout a pipe or a file (containers, log collectors), JSON
 * lines as before. The real compiled API in both, on embedded PGlite; the terminal is a real
 * pseudo-terminal (util-linux `script`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  freeLoopbackPort,
  spawnUntilListening,
  type NodeProcess,
} from '../../apps/api/testing/test-app.js';
import { waitUntil } from '../support/wait.js';

const MAIN = fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url));
const ANSI = /\u001b\[[0-9;]*m/g;

const running: NodeProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
});

async function env(): Promise<NodeJS.ProcessEnv> {
  const port = String(await freeLoopbackPort());
  return {
    PORT: port,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    REDIS_URL: '',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-logs-')),
    AUTH_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    SFU_SHARDS: '0',
    DEMO_STATION: 'false',
    NO_COLOR: '',
    FORCE_COLOR: '',
  };
}

/** A request so the log has a request line too. */
async function request(url: string): Promise<void> {
  await fetch(`${url}/api/stations/no-such-station`).then((r) => r.text());
}

describe('the API log', () => {
  it('is short coloured lines when stdout is a terminal', async () => {
    const api = await spawnUntilListening(
      'script',
      await env(),
      'API in a terminal',
      120_000,
      // `script` gives the API a pseudo-terminal as stdout (and stops with it)
      ['-qfec', `exec ${process.execPath} ${MAIN}`, '/dev/null'],
    );
    running.push(api);
    await request(api.url);
    await waitUntil(
      () => /GET \/api\/stations\/no-such-station 400/.test(api.output().replace(ANSI, '')),
      30_000,
      'the request line',
    );
    const out = api.output();
    expect(out).toMatch(ANSI); // coloured
    const lines = out.replace(ANSI, '').split(/\r?\n/);
    // `[12:34:56.789] INFO (Context): message` and the like: time, level, message
    const logLines = lines.filter((l) => /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|WARN|ERROR)/.test(l));
    expect(logLines.length).toBeGreaterThan(2);
    expect(lines.filter((l) => l.startsWith('{"level"'))).toEqual([]);
    expect(out).not.toMatch(/"pid":|hostname/);
    expect(logLines).toContainEqual(
      expect.stringMatching(/INFO: \(NestApplication\) Nest application successfully started$/),
    );
    // a request is one line: method, URL, status, time
    expect(logLines).toContainEqual(
      expect.stringMatching(/WARN: GET \/api\/stations\/no-such-station 400 \d+ ms$/),
    );
    // `script` ends when the API does
    const pid = Number(
      execFileSync('pgrep', ['-P', String(api.pid)])
        .toString()
        .trim(),
    );
    process.kill(pid, 'SIGTERM');
    await api.exited;
  }, 180_000);

  it('is JSON lines when stdout is not a terminal', async () => {
    const api = await spawnUntilListening(MAIN, await env(), 'API with piped stdout', 120_000);
    running.push(api);
    await request(api.url);
    await waitUntil(() => /no-such-station/.test(api.output()), 30_000, 'the request line');
    const out = api.output();
    expect(out).not.toMatch(ANSI);
    const json = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; time: number; msg?: string; req?: unknown });
    expect(json.length).toBeGreaterThan(2);
    for (const line of json) {
      expect(typeof line.level).toBe('number');
      expect(typeof line.time).toBe('number');
    }
    expect(json.some((l) => /Nest application successfully started/.test(l.msg ?? ''))).toBe(true);
    expect(json.some((l) => JSON.stringify(l.req ?? '').includes('no-such-station'))).toBe(true);
    await api.stop();
  }, 180_000);
});
