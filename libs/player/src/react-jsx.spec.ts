import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = join(root, 'libs/player/test/fixtures');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

/** Runs tsc on a project; returns its exit status and diagnostics. */
function typecheck(project: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('<radio-player> in a React 19 .tsx file', () => {
  it('type-checks with the declarations file in the compiler config (and rejects a missing station)', () => {
    // The fixture also holds `// @ts-expect-error` on a player without `station`: tsc fails if the
    // declarations stop requiring it.
    const r = typecheck(join(fixtures, 'tsconfig.json'));
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);

  it('fails without the declarations file, with the error the troubleshooting guide names', () => {
    const config = JSON.parse(readFileSync(join(fixtures, 'tsconfig.json'), 'utf8')) as {
      files: string[];
    };
    const dir = mkdtempSync(join(tmpdir(), 'rb-jsx-'));
    const project = join(dir, 'tsconfig.json');
    writeFileSync(
      project,
      JSON.stringify({
        ...config,
        files: [join(fixtures, 'radio-player.fixture.tsx')],
      }),
    );
    const r = typecheck(project);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(
      /Property 'radio-player' does not exist on type 'JSX.IntrinsicElements'/,
    );
  }, 60_000);
});
