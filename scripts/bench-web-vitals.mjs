// Web vitals of the built site, cold, in Debian's Chromium: FCP, LCP and CLS from the performance
// timeline (PerformanceObserver, buffered) for the station page (the built-in demo station) and the
// home page, served by the real API with its embedded database (PGlite, a fresh DATA_DIR), no
// throttling, a fresh browser context (empty cache) per load. Prints the figures; not a test.
//   npm run build && node scripts/bench-web-vitals.mjs [--runs 5]
// Budgets (issue 26): station page FCP <= 1.0 s, LCP <= 1.5 s, CLS < 0.1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const port = await new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => ok(p));
  });
});
const url = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'rb-vitals-'));
const api = spawn(process.execPath, ['apps/api/dist/main.js'], {
  env: {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const t0 = Date.now();
for (;;) {
  const ok = await fetch(`${url}/health/live`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) break;
  if (Date.now() - t0 > 180_000) throw new Error('the API did not start');
  await new Promise((r) => setTimeout(r, 250));
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

async function measure(path, viewport) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    const v = { fcp: null, lcp: null, cls: 0 };
    window.__vitals = v;
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') v.fcp = e.startTime;
    }).observe({ type: 'paint', buffered: true });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) v.lcp = e.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (!e.hadRecentInput) v.cls += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const page = await context.newPage();
  await page.goto(`${url}${path}`, { waitUntil: 'load' });
  // LCP and layout shifts settle once the page's data has arrived and been drawn.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page.waitForTimeout(1500);
  const v = await page.evaluate(() => window.__vitals);
  await context.close();
  return v;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pages = [
  ['station page', '/radiobroadcaster/demo'],
  ['home', '/'],
];
console.log(
  `web vitals, cold loads from ${url} (embedded database), ${runs} runs each, median (worst)`,
);
for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  for (const [name, path] of pages) {
    await measure(path, viewport); // one warm-up for the server, not for the browser
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await measure(path, viewport));
    const f = (k, d = 0) => {
      const xs = all.map((v) => v[k] ?? NaN);
      return `${median(xs).toFixed(d)} (${Math.max(...xs).toFixed(d)})`;
    };
    console.log(
      `${`${name} ${viewport.width}x${viewport.height}`.padEnd(26)} FCP ${f('fcp')} ms  LCP ${f('lcp')} ms  CLS ${f('cls', 3)}`,
    );
  }
}
await browser.close();
api.kill('SIGTERM');
await new Promise((r) => api.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });
