#!/usr/bin/env node
/**
 * `npm test` after its checks and build: the two Jest projects of jest.config.js, one after the other,
 * with the Node that runs this script (so every process the tests spawn runs the same Node):
 *   unit  apps/** and libs/** specs, in parallel workers (each file has its own database);
 *   e2e   test/** (built processes, browsers, network) in two runs: the files that share nothing in
 *         parallel workers, then jest.config.js's E2E_SERIAL (network, failover timing) one at a time.
 * Arguments go to every run (`npm test -- --testNamePattern foo`). RB_TEST_WORKERS sets the
 * unit run's workers (default 2), RB_E2E_WORKERS the e2e parallel set's (default 1), RB_TEST_PROJECTS
 * which projects run (default `unit,e2e`). Prints
 * the slowest files and one closing line with both runs' totals.
 *
 * No --forceExit: a run whose Jest is still alive EXIT_GRACE_MS after writing its report has a test
 * that left a handle open; it is stopped with a warning naming the cause (rather than hanging CI),
 * and its result is its report's. RB_TEST_STRICT_EXIT=1 fails such a run (once no test leaks).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = join(root, 'node_modules/jest/bin/jest.js');
const workers = process.env.RB_TEST_WORKERS ?? '2';
// The e2e files that share nothing can run in RB_E2E_WORKERS workers. The default is still 1: their
// deadlines were made generous for two files at once (docs/testing.md), but two workers have not
// yet been shown to hold in repeated runs here.
const e2eWorkers = Number(process.env.RB_E2E_WORKERS ?? '1');
const extra = process.argv.slice(2);
const out = mkdtempSync(join(tmpdir(), 'rb-test-'));
const EXIT_GRACE_MS = 15_000;

/** Runs Jest; resolves with its exit code, or -1 if it outlived its report by EXIT_GRACE_MS. */
function jestRun(args, report, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: 'inherit',
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
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      resolve(reportedAt && signal === 'SIGKILL' ? -1 : signal ? 1 : (code ?? 1));
    });
  });
}

const runs = [
  {
    name: 'unit',
    args: ['--selectProjects', 'unit', `--maxWorkers=${workers}`, '--workerIdleMemoryLimit=1GB'],
  },
  {
    name: 'e2e',
    part: 'parallel',
    args: [
      '--selectProjects',
      'e2e',
      ...(e2eWorkers > 1
        ? [`--maxWorkers=${e2eWorkers}`, '--workerIdleMemoryLimit=1GB']
        : ['--runInBand']),
    ],
  },
  { name: 'e2e', part: 'serial', args: ['--selectProjects', 'e2e', '--runInBand'] },
].filter((r) => (process.env.RB_TEST_PROJECTS ?? 'unit,e2e').split(',').includes(r.name));

console.log(`== Node ${process.version}`);
const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout?.trim();
if (onPath !== process.version)
  console.log(`== warning: \`node\` on PATH is ${onPath}: put ${process.execPath}'s folder first`);
let status = 0;
const files = [];
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const run of runs) {
  const label = run.part ? `${run.name} ${run.part}` : run.name;
  const json = join(out, `${label.replace(' ', '-')}.json`);
  const started = Date.now();
  console.log(`\n== ${label} (${run.args.slice(2).join(' ')})`);
  const code = await jestRun(
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
    run.part ? { RB_E2E_SET: run.part } : {},
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
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  for (const t of report.testResults)
    files.push({ file: relative(root, t.name), s: (t.endTime - t.startTime) / 1000 });
}
rmSync(out, { recursive: true, force: true });

console.log('\n== slowest files');
for (const f of files.sort((a, b) => b.s - a.s).slice(0, 12))
  console.log(`${f.s.toFixed(1).padStart(7)} s  ${f.file}`);
console.log(
  `\n${totals.passed} passed, ${totals.failed} failed` +
    (totals.skipped ? `, ${totals.skipped} skipped` : ''),
);
process.exit(status);
