import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from '@jest/globals';
import { CLI_VERSION, UsageError, parseCli } from './args.js';
import { runCli, type CliIO } from './cli.js';
import { matchPackets, parsePacketLog, percentile, summarize } from './stats.js';

/** Argument parsing and the statistics helpers; the commands themselves run against the real server in realserver.spec.ts. */
function io() {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env: {},
  };
  return { io: value, out, text: () => err.join('') };
}

describe('argument parsing', () => {
  const bad: [string[], RegExp][] = [
    [['nope'], /unknown command "nope"/],
    [['listen'], /--station user\/slug is required/],
    [['listen', '--station', 'justone'], /username\/slug/],
    [['listen', '--station', 'a/b', '--duration', '0'], /--duration must be greater than 0/],
    [['listen', '--station', 'a/b', '--duration', 'abc'], /--duration must be a number/],
    [['listen', '--station', 'a/b', '--server', 'ftp://x'], /must be http/],
    [
      ['listen', '--station', 'a/b', '--whep-url', 'nota url'],
      /--whep-url must be an absolute URL/,
    ],
    [['listen', '--station', 'a/b', 'extra'], /listen: Unexpected argument/],
    [['broadcast', '--station', 'a/b'], /needs --email and --password, or --token/],
    [
      ['broadcast', '--station', 'a/b', '--token', 't', '--email', 'e'],
      /either --token or --email/,
    ],
    [
      ['broadcast', '--station', 'a/b', '--token', 't', '--tone', '440', '--file', 'x.ogg'],
      /either --tone or --file/,
    ],
    [['broadcast', '--station', 'a/b', '--token', 't', '--file', 'x.mp3'], /--file must be \.ogg/],
    [
      ['broadcast', '--station', 'a/b', '--token', 't', '--tone=-5'],
      /--tone must be greater than 0/,
    ],
    [
      ['broadcast', '--station', 'a/b', '--token', 't', '--amplitude', '3'],
      /--amplitude must be at most 1/,
    ],
    [['broadcast', '--station', 'a/b', '--token', 't', '--bogus'], /Unknown option '--bogus'/],
    [['load', '--station', 'a/b'], /load needs --listeners/],
    [['load', '--station', 'a/b', '--listeners', '2.5'], /whole number/],
    [['load', '--station', 'a/b', '--listeners', '0'], /at least 1/],
    [
      ['load', '--station', 'a/b', '--listeners', '3', '--ramp', '0'],
      /--ramp must be greater than 0/,
    ],
  ];
  it.each(bad)('rejects %j', (argv, message) => {
    expect(() => parseCli(argv, {})).toThrow(UsageError);
    expect(() => parseCli(argv, {})).toThrow(message);
  });

  it('parses valid command lines with defaults and environment', () => {
    expect(parseCli(['broadcast', '--station', 'alice/morning', '--token', 'T'], {})).toMatchObject(
      {
        command: 'broadcast',
        station: 'alice/morning',
        server: 'http://127.0.0.1:3000',
        token: 'T',
        tone: 440,
        amplitude: 0.5,
        mono: false,
      },
    );
    expect(
      parseCli(
        [
          'broadcast',
          '--station',
          'http://site/alice/morning',
          '--file',
          'a.wav',
          '--duration',
          '2.5',
        ],
        {
          RB_EMAIL: 'e@x',
          RB_PASSWORD: 'pw',
          RB_SERVER: 'http://h:1/',
        },
      ),
    ).toMatchObject({
      station: 'alice/morning',
      email: 'e@x',
      password: 'pw',
      file: 'a.wav',
      tone: undefined,
      durationMs: 2500,
      server: 'http://h:1',
    });
    expect(parseCli(['broadcast', '--station', 'a/b'], { RB_STATION_TOKEN: 'S' })).toMatchObject({
      token: 'S',
    });
    expect(parseCli(['load', '--station', 'a/b', '--listeners', '20', '--json'], {})).toMatchObject(
      {
        listeners: 20,
        ramp: 10,
        concurrency: 4,
        durationMs: 30000,
        json: true,
      },
    );
    expect(parseCli(['listen', '--whep-url', 'http://h/whep/x'], {})).toMatchObject({
      command: 'listen',
      station: undefined,
    });
    expect(parseCli([], {})).toEqual({ command: 'help' });
    expect(parseCli(['load', '--help'], {})).toEqual({ command: 'help' });
  });

  it('runCli prints the error and exits with 2 on bad arguments', async () => {
    const t = io();
    expect(await runCli(['load', '--station', 'a/b'], t.io)).toBe(2);
    expect(t.text()).toMatch(
      /^radio-broadcaster: load needs --listeners N\nRun "radio-broadcaster --help"/,
    );
    const h = io();
    expect(await runCli(['--help'], h.io)).toBe(0);
    expect(h.out.join('')).toMatch(/Usage: radio-broadcaster <command>/);
  });
});

describe('stats', () => {
  it('percentiles and summaries', () => {
    expect(percentile([3, 1, 2, 4], 50)).toBe(2.5);
    expect(percentile([], 50)).toBeUndefined();
    expect(summarize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toMatchObject({
      count: 10,
      min: 1,
      max: 10,
      p50: 5.5,
      p95: 9.55,
    });
  });

  it('matches packets across an SFU that renumbers sequence numbers', () => {
    const sent = Array.from({ length: 100 }, (_, i) => ({
      seq: (65500 + i) & 0xffff,
      t: 1000 + i * 20,
      sha1: `h${i % 7}`,
    }));
    const received = sent
      .filter((_, i) => i % 10 !== 3)
      .map((s) => ({ seq: (s.seq + 1234) & 0xffff, t: s.t + 5, sha1: s.sha1 }));
    received[5] = { ...received[5], sha1: 'corrupt' };
    const m = matchPackets(sent, received);
    expect(m.seqOffset).toBe(1234);
    expect(m.matched).toBe(89);
    expect(m.mismatched).toBe(1);
    expect(m.unknown).toBe(0);
    expect(new Set(m.latencies)).toEqual(new Set([5]));
    expect(
      parsePacketLog('{"seq":1,"t":2,"sha1":"aa"}\n{"seq":2,"t":3,"hex":"00"}\n{"seq":3,"t"'),
    ).toHaveLength(2);
  });

  it('matches by RTP timestamp a listener that joined late to a steady tone, across renumbering', () => {
    // a tone repeats its payloads every 5 packets; the listener hears the last 500 of 2,000,
    // numbered from another start (as a mediasoup consumer numbers them), 3 ms after they were sent
    const sent = Array.from({ length: 2000 }, (_, i) => ({
      seq: (40000 + i) & 0xffff,
      ts: (7 + i * 960) >>> 0,
      t: 1000 + i * 20,
      sha1: `h${i % 5}`,
    }));
    const received = sent.slice(1500).map((s, i) => ({
      seq: (12345 + i) & 0xffff,
      ts: s.ts,
      t: s.t + 3,
      sha1: s.sha1,
    }));
    const m = matchPackets(sent, received);
    expect(m.matched).toBe(500);
    expect(m.mismatched).toBe(0);
    expect(new Set(m.latencies)).toEqual(new Set([3]));
    expect(m.seqOffset).toBe((12345 - (40000 + 1500)) & 0xffff);
    expect(parsePacketLog('{"seq":1,"ts":960,"t":2,"sha1":"aa"}')).toEqual([
      { seq: 1, ts: 960, t: 2, sha1: 'aa' },
    ]);
  });
});

describe('the radio-broadcaster binary', () => {
  const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', timeout: 20_000 });

  it('prints its version (the package version) with --version or -v, and exits with 0', () => {
    const pkg = JSON.parse(
      readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    ) as { version: string };
    expect(CLI_VERSION).toBe(pkg.version);
    for (const flag of ['--version', '-v']) {
      const r = run([flag]);
      expect({ status: r.status, stdout: r.stdout }).toEqual({
        status: 0,
        stdout: `radio-broadcaster ${pkg.version}\n`,
      });
    }
  });

  it('exits with 2 on a usage error (and 0 for --help)', () => {
    for (const args of [['nonsense'], ['listen'], ['load', '--station', 'a/b', '--bogus']]) {
      const r = run(args);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr).toMatch(/Run "radio-broadcaster --help" for usage/);
    }
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Exit codes: 0 done, 1 the command failed, 2 wrong command line/);
  });
});
