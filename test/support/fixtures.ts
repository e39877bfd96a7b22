/**
 * Fixture pages for browser tests: a TypeScript entry under `test/fixtures/` bundled with esbuild and
 * served at `{origin}/__fixtures/{name}` through the page's request interception, so it runs on the
 * app's origin without being part of the app.
 */
import { resolve } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './web-app.js';

const cache = new Map<string, string>();

async function bundle(name: string): Promise<string> {
  const known = cache.get(name);
  if (known) return known;
  const out = await build({
    entryPoints: [resolve(REPO_ROOT, 'test/fixtures', `${name}.ts`)],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.text;
  cache.set(name, code);
  return code;
}

/** Serves `test/fixtures/{name}.ts` inside `body` at `{origin}/__fixtures/{name}`; returns that URL. */
export async function serveFixture(
  page: Page,
  origin: string,
  name: string,
  opts: { title: string; body: string },
): Promise<string> {
  const code = (await bundle(name)).replace(/<\/script/gi, '<\\/script');
  const url = `${origin}/__fixtures/${name}`;
  await page.route(url, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${opts.title}</title></head><body>${opts.body}<script>${code}</script></body></html>`,
    }),
  );
  return url;
}
