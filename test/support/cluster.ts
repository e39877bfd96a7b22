/** Cluster test helpers: SFU node processes from the compiled `apps/sfu/dist/node/main.js`. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnUntilListening, type NodeProcess } from '../../apps/api/testing/test-app.js';
import { SFU_SECRET_HEADER, type NodeInfo } from '../../apps/sfu/src/protocol/schemas.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Compiles the apps (incremental), so the processes run what the sources say. */
export function buildApps(): void {
  execFileSync(
    process.execPath,
    [`${REPO}node_modules/typescript/bin/tsc`, '-b', 'tsconfig.build.json'],
    { cwd: REPO, stdio: 'inherit' },
  );
}

/** The node's registry record as it reports it on its internal API. */
export async function sfuNodeInfo(node: SfuProcess, secret: string): Promise<NodeInfo> {
  const res = await fetch(`${node.url}/v1/info`, { headers: { [SFU_SECRET_HEADER]: secret } });
  return (await res.json()) as NodeInfo;
}

export const SFU_NODE_MAIN = fileURLToPath(
  new URL('../../apps/sfu/dist/node/main.js', import.meta.url),
);

export interface SfuProcess extends NodeProcess {
  id: string;
}

/** Starts one SFU node on loopback (HTTP on a free port) and waits until it has registered. */
export async function spawnSfuNode(id: string, env: NodeJS.ProcessEnv): Promise<SfuProcess> {
  if (!existsSync(SFU_NODE_MAIN)) throw new Error(`${SFU_NODE_MAIN} missing: npm run build first`);
  const node = await spawnUntilListening(
    SFU_NODE_MAIN,
    { SFU_NODE_ID: id, SFU_HTTP_HOST: '127.0.0.1', SFU_HTTP_PORT: '0', ...env },
    'SFU node',
  );
  return { id, ...node };
}

export { waitUntil } from './wait.js';

/**
 * A publish function for `createTestPublisher` that goes through the API's WHIP endpoint with the
 * station token; `locations` collects each session's `Location` (for its WHIP `DELETE`).
 */
export function whipThroughApi(apiUrl: string, streamToken: string, locations: string[] = []) {
  return {
    locations,
    publish: async (stationId: string, offer: string) => {
      const res = await fetch(`${apiUrl}/whip/${stationId}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${streamToken}` },
        body: offer,
      });
      if (res.status !== 201) throw new Error(`WHIP ${res.status}: ${await res.text()}`);
      const location = res.headers.get('location')!;
      locations.push(location);
      return { sessionId: location.split('/').pop()!, answerSdp: await res.text() };
    },
  };
}
