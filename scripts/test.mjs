#!/usr/bin/env node
/**
 * `npm test` after its checks and build: the two Jest projects of jest.config.js in two runs, with the
 * Node that runs this script (so every process the tests spawn runs the same Node):
 *   1. `unit` (apps/** and libs/** specs, each file with a database of its own) and the `e2e` files
 *      (test/**: built processes, browsers, network) that share nothing, together in RB_TEST_WORKERS
 *      parallel workers (default 3);
 *   2. jest.config.js's E2E_SERIAL (network namespaces, failover and latency timing), one at a time.
 * Arguments go to every run (`npm test -- --testNamePattern foo`). RB_TEST_PROJECTS selects projects
 * (default `unit,e2e`). Prints the slowest files and one closing line with both runs' totals;
 * RB_TEST_TIMES=<file> writes every file's time there.
 *
 * No --forceExit: a run whose Jest is still alive EXIT_GRACE_MS after writing its report has a test
 * that left a handle open; it is stopped with a warning naming the cause (rather than hanging CI),
 * and its result is its report's. RB_TEST_STRICT_EXIT=1 fails such a run (once no test leaks).
 *
 * Each Jest run is a process group of its own: when it ends, any process the tests started that is
 * still running (an API process, SFU node, CLI or ffmpeg a test did not stop: a hook that timed out
 * before its process was up, a Jest stopped above) is named in a warning and killed, so it does not
 * take CPU from the runs after it (one such API process once ran through 36 minutes of a CI run).
 * RB_TEST_STRICT_EXIT=1 fails such a run too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = join(root, 'node_modules/jest/bin/jest.js');
// Workers for the unit specs and the e2e files that share nothing (RB_TEST_WORKERS, default 3): the
// suite mostly waits (on browsers, processes, timers), so 3 on 2 cores keep both cores busy; the e2e
// files' deadlines hold with three heavy files at once (docs/testing.md).
const workers = process.env.RB_TEST_WORKERS ?? '3';
const extra = process.argv.slice(2);
const out = mkdtempSync(join(tmpdir(), 'rb-test-'));
const EXIT_GRACE_MS = 15_000;

/**
 * The processes of process group `pgid` still running (Linux: /proc; elsewhere none are found), with
 * how long each has run and its command line.
 */
function groupProcesses(pgid) {
  if (process.platform !== 'linux') return [];
  const ticks = 100; // USER_HZ, the unit of /proc/<pid>/stat's start time on Linux
  const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // after "pid (comm) ": state ppid pgrp session ... starttime (the 20th field after comm)
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const ageS = uptime - Number(fields[19]) / ticks;
      found.push({ pid: Number(name), ageS, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Kills what is left of a Jest run's process group, saying what it was; returns how many there were.
 */
function killLeftovers(pgid, label) {
  const left = groupProcesses(pgid);
  if (left.length) {
    console.log(
      `== warning: ${label}: ${left.length} process(es) the tests started outlived Jest (killed; ` +
        'a test did not stop what it started):',
    );
    for (const p of left)
      console.log(`   pid ${p.pid}, running ${p.ageS.toFixed(0)} s: ${p.cmd.slice(0, 200)}`);
  }
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // nothing left
  }
  return left.length;
}

/** The Jest run in progress (its process group), for the signals this script passes on. */
let running = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    // Jest is in a process group of its own: Ctrl-C in a terminal reaches only this script
    if (running) killLeftovers(running, 'interrupted');
    rmSync(out, { recursive: true, force: true });
    process.exit(128 + constants.signals[signal]);
  });
}

/**
 * Runs Jest in a process group of its own; resolves with its exit code, or -1 if it outlived its
 * report by EXIT_GRACE_MS, and how many processes the tests left running (killed).
 */
function jestRun(args, report, env, label) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: 'inherit',
      detached: true,
      // Every Node process the tests start (API processes, SFU nodes, the CLI; Jest's workers)
      // keeps V8's compiled code of dist/ and node_modules in one cache for the run: the second
      // and later boots skip compiling them (Node's module compile cache, Node >= 22.1).
      env: { NODE_COMPILE_CACHE: join(out, 'node-compile-cache'), ...process.env, ...env },
    });
    let reportedAt = 0;
    const watch = setInterval(() => {
      if (!reportedAt && existsSync(report)) reportedAt = Date.now();
      if (reportedAt && Date.now() - reportedAt > EXIT_GRACE_MS) {
        console.log(
          `== warning: Jest did not exit ${EXIT_GRACE_MS / 1000} s after its report: a test left a ` +
            'handle open (run its file with --detectOpenHandles); stopping it',
        );
        child.kill('SIGKILL');
      }
    }, 500);
    running = child.pid;
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      running = null;
      const leftovers = killLeftovers(child.pid, label);
      resolve({
        code: reportedAt && signal === 'SIGKILL' ? -1 : signal ? 1 : (code ?? 1),
        leftovers,
      });
    });
  });
}

const projects = (process.env.RB_TEST_PROJECTS ?? 'unit,e2e').split(',');
const shared = projects.filter((p) => p === 'unit' || p === 'e2e');
const runs = [
  // the unit specs and the e2e files that share nothing, in one run: Jest hands the next file to
  // whichever worker is free, so a worker waiting in a browser file leaves the CPU to a unit spec
  shared.length && {
    label: shared.map((p) => (p === 'e2e' ? 'e2e parallel' : p)).join(' + '),
    args: ['--selectProjects', ...shared, `--maxWorkers=${workers}`, '--workerIdleMemoryLimit=1GB'],
    env: { RB_E2E_SET: 'parallel' },
  },
  projects.includes('e2e') && {
    label: 'e2e serial',
    args: ['--selectProjects', 'e2e', '--runInBand'],
    env: { RB_E2E_SET: 'serial' },
  },
].filter(Boolean);

console.log(`== Node ${process.version}`);
const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (onPath !== process.version)
  console.log(`== warning: \`node\` on PATH is ${onPath}: put ${process.execPath}'s folder first`);
let status = 0;
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const run of runs) {
  const label = run.label;
  const json = join(out, `${label.replace(/\W+/g, '-')}.json`);
  const started = Date.now();
  console.log(`\n== ${label} (${run.args.join(' ')})`);
  const { code, leftovers } = await jestRun(
    [
      '--max-old-space-size=4096',
      '--experimental-vm-modules',
      jest,
      ...run.args,
      '--passWithNoTests',
      '--json',
      `--outputFile=${json}`,
      ...extra,
    ],
    json,
    run.env,
    label,
  );
  console.log(`== ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (code > 0) status = code;
  let report;
  try {
    report = JSON.parse(readFileSync(json, 'utf8'));
  } catch {
    console.log(`== ${label}: no report (exit ${code})`);
    status ||= 1;
    continue;
  }
  if (code < 0 && (process.env.RB_TEST_STRICT_EXIT === '1' || !report.success)) status ||= 1;
  if (leftovers && process.env.RB_TEST_STRICT_EXIT === '1') status ||= 1;
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  for (const t of report.testResults)
    files.push({ file: relative(root, t.name), s: (t.endTime - t.startTime) / 1000 });
}
rmSync(out, { recursive: true, force: true });
// every file's time, slowest first, for whoever measures the suite (docs/testing.md)
if (process.env.RB_TEST_TIMES)
  writeFileSync(
    process.env.RB_TEST_TIMES,
    files
      .sort((a, b) => b.s - a.s)
      .map((f) => `${f.s.toFixed(1)}\t${f.file}\n`)
      .join(''),
  );

console.log('\n== slowest files');
for (const f of files.sort((a, b) => b.s - a.s).slice(0, 12))
  console.log(`${f.s.toFixed(1).padStart(7)} s  ${f.file}`);
console.log(
  `\n${totals.passed} passed, ${totals.failed} failed` +
    (totals.skipped ? `, ${totals.skipped} skipped` : ''),
);
process.exit(status);
