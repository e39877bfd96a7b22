#!/usr/bin/env node
// Every workspace declares what it imports (run by `npm run check`).
//
// For each workspace of the root package.json this reads every TypeScript/JavaScript source file with
// TypeScript's own import scanner (so code samples inside strings are not counted) and fails when:
//  - production code imports a package that is not in the workspace's `dependencies` (or peer/optional);
//  - test, bench and config code imports a package declared neither by the workspace (any kind) nor by the
//    root's devDependencies (the shared test tooling);
//  - an import of a workspace package goes to a subpath its `exports` map does not publish (public entry
//    points only), or a relative import leaves the workspace's folder;
//  - an `@types/*` package sits in runtime `dependencies`.
// It works only on what is written down, never on what npm happened to hoist.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const builtins = new Set(builtinModules);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.vite', 'public']);
/** Files that never ship: specs, benches, test helpers and build configs. */
const DEV_FILE =
  /(\.(spec|test)\.[cm]?[jt]sx?$)|(^|\/)(bench|testing|test|scripts)\/|(^|\/)test-[\w-]+\.[cm]?[jt]s$|\.test-helpers\.[jt]s$|^[^/]+\.config\.[cm]?[jt]s$|^[^/]+\.mjs$|\.d\.ts$/;
/**
 * Root folders that are not packages: `content/` (the site's articles and their loader, read by the API
 * and the web build) and `test/` (the suite's shared support, for test code only).
 */
const SHARED_FOLDERS = { content: 'any', test: 'dev' };
/**
 * Imports that are someone else's on purpose. The werift boundary patches tweetnacl as werift itself
 * resolves it (createRequire from werift's entry): werift's dependency, deliberately not ours.
 */
const NOT_OURS = { 'apps/sfu': new Set(['tweetnacl']) };

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.gen.ts')) out.push(path);
  }
  return out;
}

function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The import specifiers of one file, as TypeScript sees them (imports, re-exports, import(), require()). */
export function importsOf(text) {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** The problems found in the monorepo at `ROOT` (this repository unless given), one line each. */
export function checkWorkspaces(ROOT = REPO) {
  const root = readJson(join(ROOT, 'package.json'));
  const workspaces = new Map();
  for (const dir of root.workspaces) {
    const pkg = readJson(join(ROOT, dir, 'package.json'));
    workspaces.set(pkg.name, { dir, pkg });
  }
  const rootDev = new Set(Object.keys(root.devDependencies ?? {}));
  const problems = [];

  for (const { dir, pkg } of workspaces.values()) {
    const runtime = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ]);
    const dev = new Set([...runtime, ...Object.keys(pkg.devDependencies ?? {}), ...rootDev]);
    for (const name of Object.keys(pkg.dependencies ?? {})) {
      if (name.startsWith('@types/')) {
        problems.push(
          `${dir}/package.json: ${name} is a type package: devDependencies, not dependencies`,
        );
      }
    }
    const wsRoot = join(ROOT, dir);
    for (const file of walk(wsRoot)) {
      const rel = relative(wsRoot, file).split(sep).join('/');
      const isDev = DEV_FILE.test(rel);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const where = `${dir}/${rel}`;
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (target === wsRoot || target.startsWith(wsRoot + sep)) continue;
          const top = relative(ROOT, target).split(sep)[0];
          const other = [...workspaces.values()].find((w) =>
            target.startsWith(join(ROOT, w.dir) + sep),
          );
          if (other) {
            // test code may share another workspace's test helpers; anything else goes through the package
            const otherRel = relative(join(ROOT, other.dir), target).split(sep).join('/');
            if (isDev && DEV_FILE.test(otherRel)) continue;
            problems.push(
              `${where}: relative import '${spec}' reaches into ${other.dir}: import ${other.pkg.name}`,
            );
          } else if (!(top in SHARED_FOLDERS) || (SHARED_FOLDERS[top] === 'dev' && !isDev)) {
            problems.push(`${where}: relative import '${spec}' leaves ${dir}`);
          }
          continue;
        }
        if (
          spec.startsWith('node:') ||
          spec.startsWith('virtual:') ||
          builtins.has(spec.split('/')[0])
        ) {
          continue;
        }
        const name = packageOf(spec);
        if (name === pkg.name) continue;
        const declared = isDev ? dev : runtime;
        if (NOT_OURS[dir]?.has(name)) continue;
        const typesName = `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
        if (!declared.has(name) && !(isDev && dev.has(typesName))) {
          problems.push(
            `${where}: imports '${name}', which ${dir}/package.json does not declare` +
              (isDev ? '' : ' in dependencies'),
          );
        }
        const workspace = workspaces.get(name);
        if (workspace) {
          const sub = spec === name ? '.' : '.' + spec.slice(name.length);
          const exportsMap = workspace.pkg.exports ?? { '.': workspace.pkg.main };
          if (!(sub in exportsMap)) {
            problems.push(
              `${where}: '${spec}' is not a public entry point of ${name} (see its "exports")`,
            );
          }
        }
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkWorkspaces();
  const count = readJson(join(REPO, 'package.json')).workspaces.length;
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error(`\ncheck-deps: ${problems.length} undeclared or private import(s)`);
    process.exit(1);
  }
  console.log(`check-deps: every workspace declares what it imports (${count} workspaces)`);
}
