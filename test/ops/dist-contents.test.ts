/**
 * `dist` of every app and library holds production code only (scripts/check-dist.mjs, run by .ci/run after
 * the build): benches are built from apps/<app>/bench into apps/<app>/bench/dist, test helpers stay in
 * apps/<app>/testing and test/. The real tree passes; a small project written here shows that the check
 * sees a test helper dragged into a build by an import, and bench or test files in a dist folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
// @ts-expect-error: a plain ES module script, no types
import * as checkDist from '../../scripts/check-dist.mjs';

type Output = { file: string; stale: boolean };
const { buildProjects, testSourcesIn, testOutputsIn } = checkDist as {
  buildProjects: (root?: string) => string[];
  testSourcesIn: (project: string, root?: string) => string[];
  testOutputsIn: (project: string, root?: string) => Output[];
};

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'check-dist-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(
      join(root, path),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
  }
  return root;
}

describe('dist holds production code only', () => {
  it('builds every app and library from production sources, and their dist folders hold no bench or test file', () => {
    const projects = buildProjects();
    expect(projects).toEqual(
      expect.arrayContaining(['apps/api', 'apps/sfu', 'apps/cli', 'libs/contracts', 'libs/audio']),
    );
    for (const project of projects) {
      expect({ project, sources: testSourcesIn(project) }).toEqual({ project, sources: [] });
      // Leftovers of an older build (sources since moved out of src) are not this tree's output.
      const outputs = testOutputsIn(project).filter((o) => !o.stale);
      expect({ project, outputs }).toEqual({ project, outputs: [] });
    }
  }, 180_000);

  it('catches a test helper that production code imports, and bench or spec files in dist', () => {
    const root = tree({
      'tsconfig.build.json': { files: [], references: [{ path: 'apps/x' }] },
      'apps/x/tsconfig.json': {
        compilerOptions: { rootDir: 'src', outDir: 'dist', types: [], module: 'NodeNext' },
        include: ['src'],
        exclude: ['src/**/*.spec.ts'],
      },
      'apps/x/src/main.ts':
        "import { helper } from './testing/helper.js';\nexport const x = helper;\n",
      'apps/x/src/testing/helper.ts': 'export const helper = 1;\n',
      'apps/x/src/main.spec.ts': 'export {};\n',
      'apps/x/dist/main.js': 'export const x = 1;\n',
      'apps/x/dist/main.spec.js': 'export {};\n',
      'apps/x/dist/bench/api-bench.js': 'export {};\n',
    });
    expect(buildProjects(root)).toEqual(['apps/x']);
    expect(testSourcesIn('apps/x', root)).toEqual(['src/testing/helper.ts']);
    expect(testOutputsIn('apps/x', root)).toEqual([
      { file: 'apps/x/dist/bench/api-bench.js', stale: true },
      { file: 'apps/x/dist/main.spec.js', stale: false },
    ]);
  }, 60_000);
});
