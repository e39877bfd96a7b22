#!/usr/bin/env node
/**
 * `npm test` after its build (`pretest`): `npm run check` beside the tests (startChecks, below), and
 * the two Jest projects of jest.config.js in three runs, with the Node that runs this script (so every
 * process the tests spawn runs the same Node):
 *   1. `unit` (apps/** and libs/** specs, each file with a database of its own) and the `e2e` files
 *      (test/**: built processes, browsers, network) that share nothing, together in RB_TEST_WORKERS
 *      parallel workers (default 2), but for jest.config.js's UNIT_BESIDE_SERIAL;
 *   2. then jest.config.js's E2E_SERIAL (network, drain, shutdown and latency timing), one file at a
 *      time, with UNIT_BESIDE_SERIAL beside it (API specs that leave the network alone) at the lowest
 *      priority. RB_TEST_SERIAL_BESIDE=1: E2E_SERIAL_BESIDE beside run 1, which gets less of the CPU
 *      than it, then E2E_SERIAL_ALONE with UNIT_BESIDE_SERIAL beside it. The first run of a group
 *      prints as it goes, the others when they end.
 * RB_TEST_OLDEST_NODE=<folder of a `node`>: OLDEST_NODE_SPECS again on that Node, beside the serial
 * files (`.ci/run` names Node 22's).
 * Arguments go to every run (`npm test -- --testNamePattern foo`). RB_TEST_PROJECTS selects projects
 * (default `unit,e2e`; `serial`: only the serial files). Prints the slowest files and one closing
 * line with the runs' totals; RB_TEST_TIMES=<file> writes every file's time there (seconds, file,
 * run, start in the run).
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
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = join(root, 'node_modules/jest/bin/jest.js');
// Workers for the unit specs and the e2e files that share nothing (RB_TEST_WORKERS, default 2). Three
// kept a quick 2-core machine's cores busier (the files mostly wait on browsers, processes and
// timers), but on a machine where the same files need twice the CPU (28 Nov 2026: Chromium's
// renderers and process starts, a third of it in the kernel) three heavy files at once missed their
// deadlines and real-time checks in four files, and two did not (docs/testing.md).
const workers = process.env.RB_TEST_WORKERS ?? '2';
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

/**
 * Lowers the CPU share of process `pid`'s session: with the kernel's autogroups (Linux's default
 * for desktops and these machines) the CPU is shared between sessions first and nice counts only
 * inside one, so a session's priority is its autogroup's nice (0 by default, 19 the lowest).
 */
function lowerAutogroup(pid, nice) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // no autogroups here (or not Linux)
  }
}

/** The Jest runs in progress (their process groups), for the signals this script passes on. */
const running = new Set();
/** The process group of the checks running beside the tests (startChecks), while they run. */
let checksPgid = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    // Jest is in a process group of its own: Ctrl-C in a terminal reaches only this script
    for (const pgid of running) killLeftovers(pgid, 'interrupted');
    if (checksPgid) killLeftovers(checksPgid, 'interrupted checks');
    rmSync(out, { recursive: true, force: true });
    process.exit(128 + constants.signals[signal]);
  });
}

/**
 * Runs Jest in a process group of its own; resolves with its exit code, or -1 if it outlived its
 * report by EXIT_GRACE_MS, and how many processes the tests left running (killed). `quiet`: its
 * output is kept and printed whole when it ends (a run beside another that prints as it goes).
 */
function jestRun(
  args,
  report,
  env,
  label,
  quiet = false,
  autogroupNice = 0,
  node = process.execPath,
) {
  return new Promise((resolve) => {
    const child = spawn(node, args, {
      cwd: root,
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
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
    // detached: a session of its own, so an autogroup of its own (startChecks says why that matters)
    if (autogroupNice) lowerAutogroup(child.pid, autogroupNice);
    const kept = [];
    if (quiet) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => kept.push(d));
    running.add(child.pid);
    const ended = quiet
      ? Promise.all([child.stdout, child.stderr].map((s) => new Promise((ok) => s.on('close', ok))))
      : Promise.resolve();
    child.on('exit', async (code, signal) => {
      clearInterval(watch);
      running.delete(child.pid);
      // the leftovers first: a process the tests left running holds the output pipes open
      const leftovers = killLeftovers(child.pid, label);
      await ended;
      if (quiet) process.stdout.write(Buffer.concat(kept));
      resolve({
        code: reportedAt && signal === 'SIGKILL' ? -1 : signal ? 1 : (code ?? 1),
        leftovers,
      });
    });
  });
}

const projects = (process.env.RB_TEST_PROJECTS ?? 'unit,e2e').split(',');
const shared = projects.filter((p) => p === 'unit' || p === 'e2e');
/** A run of serial e2e files (`set`: jest.config.js's RB_E2E_SET), one at a time. */
const serialRun = (label, set) => ({
  label,
  // each test's time in the log: these files are where timing matters
  args: ['--selectProjects', 'e2e', '--runInBand', '--verbose'],
  env: { RB_E2E_SET: set },
});
const parallelRun = shared.length && {
  // the unit specs and the e2e files that share nothing, in one run: Jest hands the next file to
  // whichever worker is free, so a worker waiting in a browser file leaves the CPU to a unit spec
  label: shared.map((p) => (p === 'e2e' ? 'e2e parallel' : p)).join(' + '),
  args: ['--selectProjects', ...shared, `--maxWorkers=${workers}`, '--workerIdleMemoryLimit=1GB'],
  env: { RB_E2E_SET: 'parallel' },
};
// jest.config.js's serial files (E2E_SERIAL), one at a time, after the parallel run, with the
// machine to themselves but for UNIT_BESIDE_SERIAL (below). RB_TEST_SERIAL_BESIDE=1: E2E_SERIAL_BESIDE
// beside the parallel run instead, with the CPU first (the parallel run's session at autogroup nice
// RB_TEST_PARALLEL_NICE, default 10), then E2E_SERIAL_ALONE (the files that change the host's
// network, and cluster) after it. Beside saved 3 minutes on a quick machine; on one that needs twice
// the CPU for the same files, the parallel run's files it starved missed their deadlines (a CLI
// broadcaster's DTLS handshake not done in 15 s, a publisher's 20 ms feed quiet for 1.5 s).
const serialBeside = process.env.RB_TEST_SERIAL_BESIDE === '1';
const parallelNice = Number(process.env.RB_TEST_PARALLEL_NICE ?? '10');
const serial = projects.includes('e2e') || projects.includes('serial');
// jest.config.js's UNIT_BESIDE_SERIAL (API specs with no WebRTC peer or browser) beside the serial
// files, which leave the CPU idle while they wait, instead of in the parallel run, which is short of
// it; at autogroup nice 19, so the serial files' processes get the CPU whenever they want it.
const unitBesideSerial = serial && projects.includes('unit') && Boolean(parallelRun);
const besideSerialRun = {
  label: 'unit beside serial',
  args: ['--selectProjects', 'unit', '--maxWorkers=2', '--workerIdleMemoryLimit=1GB'],
  env: { RB_UNIT_SET: 'beside-serial' },
  autogroupNice: 19,
};
const parallel = parallelRun && {
  ...parallelRun,
  env: { ...parallelRun.env, ...(unitBesideSerial ? { RB_UNIT_SET: 'parallel' } : {}) },
};
// RB_TEST_OLDEST_NODE=<a folder holding `node`> (`.ci/run`: Node 22, the oldest supported): jest.config.js's
// OLDEST_NODE_SPECS again on that Node, beside the serial files at autogroup nice 19 like the run
// above (fast specs: mostly CPU the serial files leave idle), its processes with that Node first on
// PATH. Without serial files, after the other runs.
const oldestNode = process.env.RB_TEST_OLDEST_NODE;
const oldestNodeRun = oldestNode &&
  projects.includes('unit') && {
    label: `unit on Node ${spawnSync(join(oldestNode, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim()}`,
    node: join(oldestNode, 'node'),
    args: ['--selectProjects', 'unit', '--maxWorkers=2'],
    env: {
      RB_UNIT_SET: 'oldest-node',
      PATH: `${oldestNode}${delimiter}${process.env.PATH ?? ''}`,
    },
    autogroupNice: 19,
  };
const besideSerial = [
  ...(unitBesideSerial ? [besideSerialRun] : []),
  ...(oldestNodeRun && serial ? [oldestNodeRun] : []),
];
// Groups of runs: the runs of a group at once (the first prints as it goes), the groups in turn.
const groups = (
  serialBeside && parallel && serial
    ? [
        [
          { ...parallel, autogroupNice: parallelNice },
          serialRun('e2e serial beside', 'serial-beside'),
        ],
        [serialRun('e2e serial alone', 'serial-alone'), ...besideSerial],
      ]
    : [parallel && [parallel], serial && [serialRun('e2e serial', 'serial'), ...besideSerial]]
).filter(Boolean);
if (oldestNodeRun && !serial) groups.push([oldestNodeRun]);

console.log(`== Node ${process.version}`);
const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (onPath !== process.version)
  console.log(`== warning: \`node\` on PATH is ${onPath}: put ${process.execPath}'s folder first`);
let status = 0;
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };

/** One Jest run of a group: its report's totals and files go into the suite's. */
async function run({ label, args, env, autogroupNice, node }, quiet) {
  const json = join(out, `${label.replace(/\W+/g, '-')}.json`);
  const started = Date.now();
  console.log(`\n== ${label} (${args.join(' ')})${quiet ? ': its output when it ends' : ''}`);
  const { code, leftovers } = await jestRun(
    [
      '--max-old-space-size=4096',
      '--experimental-vm-modules',
      jest,
      ...args,
      '--passWithNoTests',
      '--json',
      `--outputFile=${json}`,
      ...extra,
    ],
    json,
    env,
    label,
    quiet,
    autogroupNice,
    node,
  );
  console.log(`== ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (code > 0) status = code;
  let report;
  try {
    report = JSON.parse(readFileSync(json, 'utf8'));
  } catch {
    console.log(`== ${label}: no report (exit ${code})`);
    status ||= 1;
    return;
  }
  if (code < 0 && (process.env.RB_TEST_STRICT_EXIT === '1' || !report.success)) status ||= 1;
  if (leftovers && process.env.RB_TEST_STRICT_EXIT === '1') status ||= 1;
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  for (const t of report.testResults)
    files.push({
      file: relative(root, t.name),
      s: (t.endTime - t.startTime) / 1000,
      run: label,
      from: (t.startTime - started) / 1000,
    });
}

/**
 * `npm run check` (formatting, lint, dependency declarations, type checks) beside the Jest runs, at
 * the lowest priority: the parallel run leaves CPU idle while its files wait (browsers, processes,
 * timers; a fifth of the 2 cores on a quick machine), and the checks' work fits there instead of
 * before the tests, while the tests' processes get the CPU whenever they want it. Its output is
 * printed when the Jest runs have ended; a failed check fails the suite. RB_TEST_CHECKS=0 skips it
 * (the build before the tests, `pretest`, type-checks the product's code either way).
 */
function startChecks() {
  if (process.env.RB_TEST_CHECKS === '0') return null;
  const started = Date.now();
  const nice = process.platform === 'linux' ? 'nice -n 10 ' : '';
  const child = spawn(`${nice}npm run --silent check`, {
    cwd: root,
    shell: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // a session of its own, which gets nice 19 as a whole (lowerAutogroup; at nice 10 alone the
    // checks took a third of the CPU)
    detached: true,
  });
  checksPgid = child.pid;
  child.on('exit', () => (checksPgid = 0));
  lowerAutogroup(child.pid, 19);
  const kept = [];
  for (const s of [child.stdout, child.stderr]) s.on('data', (d) => kept.push(d));
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 1 : 0),
        output: Buffer.concat(kept),
        seconds: (Date.now() - started) / 1000,
      }),
    ),
  );
}

const checks = startChecks();
for (const group of groups) {
  const started = Date.now();
  await Promise.all(group.map((r, i) => run(r, i > 0)));
  if (group.length > 1)
    console.log(`== ${group.length} runs at once: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
if (checks) {
  const { code, output, seconds } = await checks;
  console.log(`\n== checks (npm run check, beside the tests at low priority)`);
  process.stdout.write(output);
  console.log(`== checks: ${code ? `failed (exit ${code})` : 'passed'} in ${seconds.toFixed(0)} s`);
  if (code) status ||= code;
}
rmSync(out, { recursive: true, force: true });
// every file's time, slowest first, for whoever measures the suite (docs/testing.md)
if (process.env.RB_TEST_TIMES)
  writeFileSync(
    process.env.RB_TEST_TIMES,
    files
      .sort((a, b) => b.s - a.s)
      .map((f) => `${f.s.toFixed(1)}\t${f.file}\t${f.run}\t${f.from.toFixed(1)}\n`)
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
