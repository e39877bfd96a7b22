#!/usr/bin/env node
/** The `radio-broadcaster` binary. */
import { runCli } from './cli.js';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(
      `radio-broadcaster: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exit(1);
  },
);
