import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_MAIN = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

export interface RunningProcess {
  child: ChildProcess;
  /** Everything written so far to stdout and stderr. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The compiled `radio-broadcaster` CLI in a process of its own. */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    child,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The last JSON line a `--json` command printed. */
export function lastJsonLine<T>(output: string): T {
  const line = output
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no JSON summary in:\n${output}`);
  return JSON.parse(line) as T;
}

export { waitUntil } from './wait.js';
