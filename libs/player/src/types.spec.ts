import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const project = fileURLToPath(new URL('../test/wire-types/tsconfig.json', import.meta.url));
const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

describe('wire types', () => {
  // Jest's transform (swc) strips the types file by file without checking them, so type assertions
  // inside a spec could never fail it: the compiler checks them here, in a project of their own.
  it('match @radiobroadcaster/contracts in both directions (tsc on test/wire-types)', () => {
    const r = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);
});
