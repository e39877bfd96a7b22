/**
 * The order in which Jest starts the test files (jest.config.js's `testSequencer`).
 *
 * Jest's own order on a fresh clone (no timings cached) is by file size, which puts short files
 * late and left the parallel run's last ~25 s with one or two of its workers busy. Here the files
 * start longest first (the longest-processing-time rule), with their times from a whole run
 * checked in as test/durations.tsv (seconds, file: the first two columns of what
 * `RB_TEST_TIMES=<file> npm test` writes; regenerate it after adding or reshaping files). A file not
 * listed there (a new one) starts first: its time is unknown, and starting it late is what costs
 * (unknown ones among themselves: largest first, as Jest does).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import jestSequencer from '@jest/test-sequencer';

/** Jest's own sequencer (CommonJS: its class is the module's `default`). */
const TestSequencer = jestSequencer.default ?? jestSequencer;

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** test/durations.tsv: file -> seconds. */
function durations() {
  const known = new Map();
  let text = '';
  try {
    text = readFileSync(new URL('../../durations.tsv', import.meta.url), 'utf8');
  } catch {
    return known; // none: every file is new, and Jest's order by file size stands
  }
  for (const line of text.split('\n')) {
    const [seconds, file] = line.split('\t');
    if (file && Number.isFinite(Number(seconds))) known.set(file.trim(), Number(seconds));
  }
  return known;
}

export default class DurationSequencer extends TestSequencer {
  /** The order only: `--onlyFailures` and the results Jest caches after a run stay Jest's own. */
  sort(tests) {
    const known = durations();
    const key = (test) => {
      const file = relative(root, test.path);
      return {
        seconds: known.get(file) ?? Number.POSITIVE_INFINITY,
        size: test.context.hasteFS.getSize(test.path) ?? 0,
        file,
      };
    };
    const keyed = tests.map((test) => ({ test, ...key(test) }));
    keyed.sort(
      (a, b) =>
        (a.seconds === b.seconds ? 0 : b.seconds > a.seconds ? 1 : -1) ||
        b.size - a.size ||
        (a.file < b.file ? -1 : 1),
    );
    return keyed.map(({ test }) => test);
  }
}
