/**
 * `scripts/check-deps.mjs` (run by `npm run check`): every workspace declares what it imports, uses other
 * workspaces' public entry points only, and keeps `@types/*` out of runtime dependencies. The real tree
 * passes; a small monorepo written here shows each mistake it must catch.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
// @ts-expect-error: a plain ES module script, no types
import { checkWorkspaces, importsOf } from '../../scripts/check-deps.mjs';

const check = checkWorkspaces as (root?: string) => string[];
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function monorepo(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'check-deps-'));
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

const base = {
  'package.json': { workspaces: ['libs/a', 'apps/b'], devDependencies: { jest: '*' } },
  'libs/a/package.json': {
    name: '@x/a',
    exports: { '.': './dist/index.js', './public': './dist/public.js' },
    dependencies: { zod: '*' },
  },
  'libs/a/src/index.ts': "import { z } from 'zod';\nexport const s = z.string();\n",
  'libs/a/src/internal.ts': 'export const secret = 1;\n',
};

describe('check-deps', () => {
  it('passes on this repository', () => {
    expect(check()).toEqual([]);
  });

  it('reads imports as TypeScript does: code samples in strings are not imports', () => {
    const text =
      "import a from 'a';\nexport * from './b.js';\nconst c = await import('c');\n" +
      "const sample = `import { Webhook } from 'standardwebhooks';`;\n";
    expect(importsOf(text)).toEqual(['a', './b.js', 'c']);
  });

  it('flags undeclared packages, private entry points, reach-ins and runtime @types', () => {
    const root = monorepo({
      ...base,
      'apps/b/package.json': {
        name: '@x/b',
        dependencies: { '@x/a': '*', '@types/node': '*' },
        devDependencies: { supertest: '*' },
      },
      'apps/b/src/main.ts': [
        "import { s } from '@x/a';",
        "import { p } from '@x/a/public';",
        "import { secret } from '@x/a/internal';",
        "import { readFile } from 'node:fs';",
        "import express from 'express';",
        "import request from 'supertest';",
        "import { secret as again } from '../../../libs/a/src/internal.js';",
      ].join('\n'),
      'apps/b/src/main.spec.ts': "import { it } from 'jest';\nimport request from 'supertest';\n",
    });
    expect(check(root).sort()).toEqual(
      [
        'apps/b/src/main.ts: \'@x/a/internal\' is not a public entry point of @x/a (see its "exports")',
        "apps/b/src/main.ts: imports 'express', which apps/b/package.json does not declare in dependencies",
        "apps/b/src/main.ts: imports 'supertest', which apps/b/package.json does not declare in dependencies",
        "apps/b/src/main.ts: relative import '../../../libs/a/src/internal.js' reaches into libs/a: import @x/a",
        'apps/b/package.json: @types/node is a type package: devDependencies, not dependencies',
      ].sort(),
    );
  });
});
