#!/usr/bin/env node
/**
 * `npm run dev`: the API in watch mode (`nest start api --watch`, restarted on every change) and the
 * web app on Vite with hot reload, which forwards the API's paths to it (web/vite.config.ts). Open
 * http://127.0.0.1:5173. Ctrl-C stops both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules/.bin', name);
const WEB = 'http://127.0.0.1:5173';
const API_PORT = process.env.PORT ?? '3000';

// The API serves the player bundle (/player.js) from libs/player/dist.
const player = spawnSync('npm', ['run', 'build', '--workspace', 'libs/player'], {
  cwd: root,
  stdio: 'inherit',
});
if (player.status !== 0) process.exit(player.status ?? 1);

const children = new Set();
let stopping = false;

function run(name, command, args, env = {}) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!stopping) {
      process.stdout.write(`${prefix}exited (${signal ?? code}); stopping\n`);
      stop(code ?? 1);
    }
  });
}

function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  if (children.size === 0) process.exit(code);
  for (const child of children) child.on('exit', () => children.size === 0 && process.exit(code));
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

run('api', bin('nest'), ['start', 'api', '--watch', '--preserveWatchOutput'], {
  PORT: API_PORT,
  // Pages are served by Vite: links, cookies and the allowed origins follow it.
  PUBLIC_URL: process.env.PUBLIC_URL ?? WEB,
});
run('web', 'npm', ['run', 'dev', '--workspace', 'web'], {
  RB_API_ORIGIN: `http://127.0.0.1:${API_PORT}`,
});
