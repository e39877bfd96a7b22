#!/usr/bin/env node
// Draws the 1200×630 cover images of the blog posts and tutorials (SVG, then PNG for social previews
// through Debian's Chromium):  node content/covers.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PUBLIC = resolve(dirname(fileURLToPath(import.meta.url)), '../web/public/images');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const covers = [
  ['tutorials/html-radio-broadcaster', 'HTML', 'Add a live radio player to any HTML page'],
  ['tutorials/wordpress-radio-broadcaster', 'WordPress', 'Add a live radio player to WordPress'],
  ['tutorials/wix-radio-broadcaster', 'Wix', 'Add a live radio player to Wix'],
  [
    'tutorials/squarespace-radio-broadcaster',
    'Squarespace',
    'Add a live radio player to Squarespace',
  ],
  ['tutorials/webflow-radio-broadcaster', 'Webflow', 'Add a live radio player to Webflow'],
  [
    'tutorials/react-nextjs-radio-broadcaster',
    'React · Next.js',
    'The live radio player in React and Next.js',
  ],
  ['blog/introducing-radio-broadcaster', 'Blog', 'Turn your Mac into a private radio station'],
  ['blog/how-the-embeddable-player-works', 'Blog', 'How the embeddable player works'],
];

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Splits a title into lines of at most `max` characters. */
function wrap(text, max) {
  const lines = [''];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if ((lines[last] + ' ' + word).trim().length > max) lines.push(word);
    else lines[last] = (lines[last] + ' ' + word).trim();
  }
  return lines;
}

function cover(label, title) {
  const lines = wrap(title, 24);
  const text = lines
    .map((l, i) => `<text x="80" y="${250 + i * 78}" class="t">${esc(l)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
<style>.t{font:700 64px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:#f5f6f8}.l{font:600 30px system-ui,sans-serif;fill:#e5484d;letter-spacing:2px}.b{font:600 28px system-ui,sans-serif;fill:#a0a7b4}</style>
<rect width="1200" height="630" fill="#0b0d12"/>
<circle cx="1010" cy="315" r="230" fill="none" stroke="#1d212b" stroke-width="40"/>
<circle cx="1010" cy="315" r="150" fill="none" stroke="#262b37" stroke-width="30"/>
<circle cx="1010" cy="315" r="70" fill="#e5484d"/>
<path d="M990 280v70l55-35z" fill="#fff"/>
<text x="80" y="150" class="l">${esc(label.toUpperCase())}</text>
${text}
<text x="80" y="560" class="b">Radio Broadcaster</text>
</svg>`;
}

const tmp = mkdtempSync(join(tmpdir(), 'rb-covers-'));
for (const [name, label, title] of covers) {
  const svg = cover(label, title);
  const svgFile = join(PUBLIC, `${name}.svg`);
  writeFileSync(svgFile, svg);
  execFileSync(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      `--user-data-dir=${tmp}`,
      `--screenshot=${join(PUBLIC, `${name}.png`)}`,
      '--window-size=1200,630',
      `file://${svgFile}`,
    ],
    { stdio: 'ignore' },
  );
  console.log(`${name}.png`);
}
