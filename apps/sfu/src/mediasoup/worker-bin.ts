/**
 * Where the mediasoup worker binary is, if anywhere: `MEDIASOUP_WORKER_BIN`; the prebuilt worker
 * the npm package downloaded (machines with ordinary internet access); or the one
 * scripts/build-mediasoup-worker.sh built into ~/.cache/rb-mediasoup/<version>/ (this machine, CI).
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const WORKER_BUILD_HINT =
  'build the mediasoup worker with scripts/build-mediasoup-worker.sh (or set MEDIASOUP_WORKER_BIN)';

export type MediasoupAvailability =
  | { available: true; bin: string; version: string; packageDir: string }
  | { available: false; reason: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The installed mediasoup package's directory and version, or null when it is not installed. */
export function mediasoupPackage(): { dir: string; version: string } | null {
  try {
    const require = createRequire(import.meta.url);
    // its exports hide package.json: the entry point is <package>/node/lib/index.js
    const dir = join(dirname(require.resolve('mediasoup')), '..', '..');
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      version: string;
    };
    return { dir, version };
  } catch {
    return null;
  }
}

export function findMediasoupWorker(env: NodeJS.ProcessEnv = process.env): MediasoupAvailability {
  const pkg = mediasoupPackage();
  if (!pkg) {
    return {
      available: false,
      reason:
        'the mediasoup package is not installed (npm ci with MEDIASOUP_WORKER_BIN set keeps it)',
    };
  }
  const candidates: string[] = [];
  if (env.MEDIASOUP_WORKER_BIN) candidates.push(env.MEDIASOUP_WORKER_BIN);
  candidates.push(join(pkg.dir, 'worker', 'out', 'Release', 'mediasoup-worker'));
  const cache = env.RB_MEDIASOUP_CACHE ?? join(env.HOME ?? homedir(), '.cache', 'rb-mediasoup');
  candidates.push(join(cache, pkg.version, 'mediasoup-worker'));
  for (const bin of candidates) {
    if (executable(bin)) return { available: true, bin, version: pkg.version, packageDir: pkg.dir };
  }
  return {
    available: false,
    reason: env.MEDIASOUP_WORKER_BIN
      ? `MEDIASOUP_WORKER_BIN (${env.MEDIASOUP_WORKER_BIN}) is not an executable file`
      : `no mediasoup ${pkg.version} worker found (${candidates.slice(1).join(', ')})`,
  };
}
