import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root: the nearest folder above this module whose package.json declares the
 * workspaces. Found by walking up, because the compiled API sits at different depths (`npm run
 * build` writes apps/api/dist, `nest build api` writes dist/apps/api/apps/api/src).
 */
export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  for (let dir = start; dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      if ((JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces)
        return dir;
    } catch {
      // not ours: keep looking
    }
  }
  return process.cwd();
}
