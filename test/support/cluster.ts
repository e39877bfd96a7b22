/** Cluster test helpers: SFU node processes from the compiled `apps/sfu/dist/node/main.js`. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SFU_NODE_MAIN = fileURLToPath(
  new URL('../../apps/sfu/dist/node/main.js', import.meta.url),
);

export interface SfuProcess {
  id: string;
  url: string;
  pid: number;
  output: () => string;
  kill: () => void;
  stop: () => Promise<void>;
}

/** Starts one SFU node on loopback (HTTP on a free port) and waits until it has registered. */
export async function spawnSfuNode(id: string, env: NodeJS.ProcessEnv): Promise<SfuProcess> {
  if (!existsSync(SFU_NODE_MAIN)) throw new Error(`${SFU_NODE_MAIN} missing: npm run build first`);
  const child = spawn(process.execPath, [SFU_NODE_MAIN], {
    env: {
      ...process.env,
      SFU_NODE_ID: id,
      SFU_HTTP_HOST: '127.0.0.1',
      SFU_HTTP_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`SFU node did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`SFU node exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    id,
    url,
    pid: child.pid!,
    output: () => output,
    kill: () => child.kill('SIGKILL'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await cond()) return Date.now() - t0;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
