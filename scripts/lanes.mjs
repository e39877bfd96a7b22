#!/usr/bin/env node
/**
 * Runs each argument as a shell command line ("a && b && c"), all of them at once, and prints each one's
 * output when it ends (whole, not interleaved), with its time. Exits with the first failure's status once
 * every lane has ended. `npm run check` runs its two lanes (formatting and lint; the type checks) this
 * way: on 2 cores they take the time of the longer lane, not of both (docs/testing.md).
 *
 * usage: node scripts/lanes.mjs '<command line>' ['<command line>' ...]
 */
import { spawn } from 'node:child_process';

const lanes = process.argv.slice(2);
if (!lanes.length) {
  console.error("usage: node scripts/lanes.mjs '<command line>' ['<command line>' ...]");
  process.exit(2);
}

const results = await Promise.all(
  lanes.map(
    (line) =>
      new Promise((resolve) => {
        const started = Date.now();
        const chunks = [];
        const child = spawn(line, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.on('data', (c) => chunks.push(c));
        child.stderr.on('data', (c) => chunks.push(c));
        child.on('close', (code, signal) => {
          const status = code ?? (signal ? 1 : 0);
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(`== ${line} (${seconds} s${status ? `, exit ${status}` : ''})\n`);
          process.stdout.write(Buffer.concat(chunks));
          resolve(status);
        });
      }),
  ),
);
process.exit(results.find((status) => status !== 0) ?? 0);
