/** What a command writes to and reads from, and the small helpers every command prints with. */
import type { Station } from '@radiobroadcaster/contracts';
import type { ApiClient } from '../api.js';

export interface CliIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Install SIGINT/SIGTERM handlers (the binary does; tests don't). */
  handleSignals?: boolean;
  /** Aborting this stops a running command as SIGINT would. */
  signal?: AbortSignal;
}

export const ms = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);
export const pct = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(2)}%`);

export function progress(io: CliIO) {
  const tty = io.stderr.isTTY === true;
  return {
    line(s: string) {
      io.stderr.write(tty ? `\r\x1b[2K${s}` : `${s}\n`);
    },
    done() {
      if (tty) io.stderr.write('\n');
    },
  };
}

export async function resolveStation(api: ApiClient, address: string): Promise<Station> {
  return api.getStationByAddress(address);
}

export function progressNewline(io: CliIO): string {
  return io.stderr.isTTY ? '\n' : '';
}
