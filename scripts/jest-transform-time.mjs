#!/usr/bin/env node
// Times Jest's transform of every TypeScript file the two projects load, cold (fresh cache dir).
// usage: RB_JEST_TRANSFORM=ts-jest|swc node scripts/jest-transform-time.mjs (docs/testing.md)
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
const root = fileURLToPath(new URL('..', import.meta.url));
const req = createRequire(join(root, 'package.json'));
const { readConfigs } = req('jest-config');
const { createScriptTransformer } = req('@jest/transform');
process.chdir(root);
const cacheDirectory = mkdtempSync(join(tmpdir(), 'rb-xform-'));
const { configs } = await readConfigs({ _: [], $0: 'jest', cacheDirectory }, [root]);
const unit = configs.find((c) => c.displayName?.name === 'unit');
const files = [];
const walk = (d) => {
  for (const e of readdirSync(d)) {
    if (e === 'node_modules' || e === 'dist') continue;
    const p = join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
  }
};
for (const d of [
  'apps/api/src',
  'apps/api/testing',
  'apps/sfu/src',
  'apps/sfu/testing',
  'apps/cli/src',
  'libs/contracts/src',
  'libs/audio/src',
  'libs/player/src',
  'test',
])
  walk(join(root, d));
const t0 = performance.now();
const tr = await createScriptTransformer(unit);
const t1 = performance.now();
let bytes = 0;
for (const f of files) {
  const r = await tr.transformSourceAsync(f, readFileSync(f, 'utf8'), {
    instrument: false,
    supportsStaticESM: true,
    supportsDynamicImport: true,
    supportsExportNamespaceFrom: true,
    supportsTopLevelAwait: true,
  });
  bytes += r.code.length;
}
const t2 = performance.now();
console.log(
  `${process.env.RB_JEST_TRANSFORM ?? 'swc'}: ${files.length} files, setup ${(t1 - t0).toFixed(0)} ms, transform ${((t2 - t1) / 1000).toFixed(2)} s, ${(bytes / 1e6).toFixed(1)} MB out`,
);
