/**
 * The `radio-broadcaster` command line: parses it, runs one command (commands/, a file each) and
 * returns the exit code; main.ts calls it.
 */
import { CLI_VERSION, EXIT, USAGE, UsageError, parseCli } from './args.js';
import { broadcast } from './commands/broadcast.js';
import { describeError } from './commands/describe-error.js';
import type { CliIO } from './commands/io.js';
import { listen } from './commands/listen.js';
import { load } from './commands/load.js';

export { describeError } from './commands/describe-error.js';
export type { CliIO } from './commands/io.js';
export type { LoadSummary } from './commands/load.js';

const defaultIO = (): CliIO => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  handleSignals: true,
});

/** Runs a command line (argv without node and script); resolves with the exit code. */
export async function runCli(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  let args;
  try {
    args = parseCli(argv, io.env);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(
        `radio-broadcaster: ${e.message}\nRun "radio-broadcaster --help" for usage.\n`,
      );
      return EXIT.usage;
    }
    throw e;
  }
  if (args.command === 'help') {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.command === 'version') {
    io.stdout.write(`radio-broadcaster ${CLI_VERSION}\n`);
    return EXIT.ok;
  }
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) {
      io.stderr.write('\nforced exit\n');
      process.exit(EXIT.interrupted);
    }
    io.stderr.write('\nstopping…\n');
    stop.abort();
  };
  if (io.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  try {
    if (args.command === 'broadcast') return await broadcast(args, io, stop.signal);
    if (args.command === 'listen') return await listen(args, io, stop.signal);
    return await load(args, io, stop.signal);
  } catch (e) {
    io.stderr.write(
      `radio-broadcaster: ${describeError(e, 'station' in args ? args.station : undefined)}\n`,
    );
    return EXIT.failed;
  } finally {
    if (io.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
