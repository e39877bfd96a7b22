// Builds the player: dist/player.mjs (ESM) and dist/player.js (classic script) for pages and CDNs,
// plus dist/index.js, element.js, register.js for bundler consumers. Fails above the size budget.
//   PLAYER_API_BASE=https://radio.example node build.mjs   # API origin for copies served by a public CDN
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');
const BUDGET_BYTES = 20 * 1024;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const apiBase = process.env.PLAYER_API_BASE ?? '';

const common = {
  absWorkingDir: root,
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  sourcemap: 'linked',
  logLevel: 'warning',
  define: { __RB_API_BASE__: JSON.stringify(apiBase) },
  banner: { js: `/*! @radiobroadcaster/player ${pkg.version} */` },
};

rmSync(dist, { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: ['src/register.ts'], format: 'esm', outfile: 'dist/player.mjs' }),
  build({
    ...common,
    entryPoints: ['src/register.ts'],
    format: 'iife',
    globalName: 'RadioPlayer',
    outfile: 'dist/player.js',
    // The classic script finds its origin through document.currentScript.
    define: { ...common.define, 'import.meta.url': 'undefined' },
  }),
  build({
    ...common,
    entryPoints: ['src/index.ts', 'src/element.ts', 'src/register.ts'],
    format: 'esm',
    splitting: true,
    outdir: 'dist',
    chunkNames: 'chunks/[name]-[hash]',
  }),
  // Who is listening (issue 27): a chunk of its own with the player's socket.io connection, loaded by
  // the element where it fits.
  build({
    ...common,
    entryPoints: ['src/presence.ts'],
    format: 'esm',
    outfile: 'dist/player-presence.mjs',
  }),
  // Player chat (issue 27): a chunk of its own on the presence chunk's connection, loaded by the
  // element only when the owner turns it on.
  build({
    ...common,
    entryPoints: ['src/chat.ts'],
    format: 'esm',
    outfile: 'dist/player-chat.mjs',
  }),
]);

let over = false;
for (const file of ['player.mjs', 'player.js']) {
  const code = readFileSync(join(dist, file));
  const gz = gzipSync(code, { level: 9 }).length;
  over ||= gz > BUDGET_BYTES;
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(
    `${file.padEnd(11)} ${kb(code.length).padStart(6)} KB  gzipped ${kb(gz).padStart(5)} KB  (budget ${kb(BUDGET_BYTES)} KB)`,
  );
}
if (!apiBase)
  console.log('PLAYER_API_BASE not set: CDN copies will call the origin that served them.');
if (over) {
  console.error('player: over the gzipped size budget');
  process.exit(1);
}
