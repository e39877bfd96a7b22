// Renders the app icons (web/public/icons) from the logo with Debian's Chromium: node scripts/make-icons.mjs
import { chromium } from 'playwright-core';
const svg = (bleed) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${bleed ? '<rect width="64" height="64" fill="#0b0d12"/><g transform="translate(9.6 9.6) scale(0.7)">' : '<g>'}<rect width="64" height="64" rx="14" fill="#0b0d12"/><circle cx="32" cy="34" r="6" fill="#ff5a5f"/><path d="M20 46a17 17 0 0 1 0-24M44 22a17 17 0 0 1 0 24M13 53a27 27 0 0 1 0-38M51 15a27 27 0 0 1 0 38" fill="none" stroke="#ff5a5f" stroke-width="4" stroke-linecap="round"/></g></svg>`;
const b = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
for (const [name, size, bleed] of [
  ['icon-192.png', 192, false],
  ['icon-512.png', 512, false],
  ['maskable-512.png', 512, true],
  ['apple-touch-icon.png', 180, true],
]) {
  const p = await b.newPage({ viewport: { width: size, height: size } });
  await p.setContent(
    `<html><body style="margin:0;background:transparent">${svg(bleed).replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
  );
  await p.screenshot({ path: `web/public/icons/${name}`, omitBackground: true });
}
await b.close();
