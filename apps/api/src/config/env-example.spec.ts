/** .env.example and the configuration page's table (docs/configuration.md) name every variable the API and an SFU node read. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { REPO_ROOT } from '../common/repo-root.js';
import { ENV_NAMES } from './config.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}/${path}`, 'utf8');

/** What the SFU node's configuration reads: `env.NAME` and `int(env, 'NAME', …)`. */
const SFU_NODE_NAMES = [
  ...read('apps/sfu/src/node/config.ts').matchAll(
    /env\.([A-Z][A-Z0-9_]+)|int\(env, '([A-Z0-9_]+)'/g,
  ),
].map((m) => m[1] ?? m[2]!);
/** Read by the Docker image's HEALTHCHECK, not by the app. */
const DOCKER_NAMES = ['HEALTH_PORT', 'HEALTH_PATH'];

describe('.env.example', () => {
  const example = read('.env.example');
  const listed = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
  const table = read('docs/configuration.md');

  it('lists every variable the API and an SFU node read, each once, with nothing unknown', () => {
    const known = new Set([...ENV_NAMES, ...SFU_NODE_NAMES, ...DOCKER_NAMES]);
    expect(ENV_NAMES).toContain('SFU_MAX_LISTENERS');
    expect(SFU_NODE_NAMES).toEqual(expect.arrayContaining(['SFU_NODE_ID', 'SFU_RELAY_LINGER_MS']));
    expect(new Set(listed).size).toBe(listed.length);
    expect([...known].filter((n) => !listed.includes(n))).toEqual([]);
    expect(listed.filter((n) => !known.has(n))).toEqual([]);
    for (const name of DOCKER_NAMES) expect(read('docker/Dockerfile')).toContain(name);
  });

  it("says what each one does (a comment right above it), and docs/configuration.md's table has them all", () => {
    const lines = example.split('\n');
    for (const name of listed) {
      const at = lines.findIndex((l) => new RegExp(`^#? ?${name}=`).test(l));
      const above = lines.slice(0, at).reverse();
      const comment = above.find((l) => !/^#? ?[A-Z][A-Z0-9_]+=/.test(l));
      expect({ name, comment: comment?.startsWith('# ') ?? false }).toEqual({
        name,
        comment: true,
      });
    }
    const missing = [...ENV_NAMES, ...SFU_NODE_NAMES].filter((n) => !table.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });
});
