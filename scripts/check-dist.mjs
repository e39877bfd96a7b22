#!/usr/bin/env node
// `dist` holds production code only (run by .ci/run after the build, and by test/ops/dist-contents.test.ts).
//
// Benches live in apps/*/bench (built by `npm run build:bench` into apps/*/bench/dist), test helpers in
// apps/*/testing and test/, specs beside the code; none of them may reach an app's or library's `dist`.
// For each project of tsconfig.build.json this checks both ends:
//  - inputs: the sources `tsc` compiles for the project (`tsc -p … --listFilesOnly`), so a bench or test
//    file that a production file imports (and so drags into the build) is caught without building;
//  - outputs: the files in its `dist` folder (after a build), so nothing else put them there.
// An output whose source no longer exists is a leftover of an older build (tsc -b never deletes):
// `rm -rf apps/*/dist libs/*/dist && npm run build` clears it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Bench and test code, by path inside a project (sources) or its dist (outputs). */
export const NOT_PRODUCTION =
  /(^|\/)(bench|benches|testing|test|tests|__tests__|fixtures)\/|\.(spec|test)\.[cm]?[jt]sx?$|\.(spec|test)\.d\.[cm]?ts$|(^|\/)(bench|test)-[\w-]+\.|\.test-helpers\./;

/** The projects `npm run build` compiles with tsc -b: apps and libraries. */
export function buildProjects(root = REPO) {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  return config.references.map((r) => r.path);
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** The bench and test sources tsc compiles into a project's dist, as paths inside the project. */
export function testSourcesIn(project, root = REPO) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const dir = join(root, project);
  const files = execFileSync(process.execPath, [tsc, '-p', dir, '--listFilesOnly'], {
    encoding: 'utf8',
  })
    .split('\n')
    .map((f) => f.trim())
    .filter(
      (f) => f.startsWith(dir + '/') && !f.includes('/node_modules/') && !f.endsWith('.d.ts'),
    );
  return files
    .map((f) => relative(dir, f).split(sep).join('/'))
    .filter((f) => NOT_PRODUCTION.test(f));
}

/** Bench and test files in a project's dist: `stale` when no source of that name exists any more. */
export function testOutputsIn(project, root = REPO) {
  const dir = join(root, project);
  const dist = join(dir, 'dist');
  return walk(dist)
    .map((f) => relative(dist, f).split(sep).join('/'))
    .sort()
    .filter((f) => NOT_PRODUCTION.test(f))
    .map((f) => {
      const stem = f.replace(/(\.d)?\.[cm]?js(\.map)?$|\.d\.[cm]?ts(\.map)?$/, '');
      const stale = !['.ts', '.tsx', '.mts'].some((ext) =>
        existsSync(join(dir, 'src', stem + ext)),
      );
      return { file: `${project}/dist/${f}`, stale };
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = [];
  for (const project of buildProjects()) {
    for (const f of testSourcesIn(project))
      problems.push(`${project}/${f}: compiled into ${project}/dist`);
    for (const { file, stale } of testOutputsIn(project)) {
      problems.push(
        stale
          ? `${file}: left by an older build (rm -rf apps/*/dist libs/*/dist && npm run build)`
          : `${file}: bench or test code in dist`,
      );
    }
  }
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`\ncheck-dist: ${problems.length} bench or test file(s) in dist`);
    process.exit(1);
  }
  console.log(`check-dist: dist of ${buildProjects().join(', ')} holds production code only`);
}
