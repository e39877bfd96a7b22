import { ErrorTag, IMAGE_RULES, type ImageKind, PRODUCT_NAME } from '@radiobroadcaster/contracts';
import type { Metadata, OverlayOptions } from 'sharp';
import { AppError } from '../common/app-error.js';
import { lazy } from '../common/lazy.js';

/** sharp (libvips), loaded at the first image rather than at start-up. */
export const loadSharp = lazy(async () => (await import('sharp')).default);

/** What sharp must recognise in the bytes themselves (the declared type is not trusted). */
const FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif']);

export interface ProcessedImage {
  bytes: Buffer;
  width: number;
  height: number;
  contentType: 'image/webp';
}

const field = (kind: ImageKind) => (kind === 'cover' ? 'cover' : 'avatar');

function refuse(kind: ImageKind, message: string, tag: ErrorTag = ErrorTag.ValidationError) {
  return new AppError(tag, message, [{ path: field(kind), message }]);
}

/**
 * Checks an upload and makes the kept version: the picture turned upright, cropped square around
 * what draws the eye, resized, WebP. Refuses with a plain message (and the field) what is not an
 * image, too small or absurdly large.
 */
export async function processUpload(input: Buffer, kind: ImageKind): Promise<ProcessedImage> {
  const rules = IMAGE_RULES[kind];
  if (input.length === 0) throw refuse(kind, 'Choose an image file to upload.');
  if (input.length > IMAGE_RULES.maxBytes) {
    throw refuse(
      kind,
      'This image is larger than 8 MB. Use a smaller file.',
      ErrorTag.PayloadTooLarge,
    );
  }
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: IMAGE_RULES.maxSide ** 2 }).metadata();
  } catch {
    throw refuse(
      kind,
      'This file is not an image we can read. Use a JPEG, PNG, WebP, GIF or AVIF.',
    );
  }
  if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height) {
    throw refuse(
      kind,
      'This file is not an image we can read. Use a JPEG, PNG, WebP, GIF or AVIF.',
    );
  }
  // Sides as shown, after the camera's rotation is applied.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = turned ? meta.height : meta.width;
  const height = turned ? meta.width : meta.height;
  if (width > IMAGE_RULES.maxSide || height > IMAGE_RULES.maxSide) {
    throw refuse(
      kind,
      `This image is ${width}×${height} pixels; use one at most ${IMAGE_RULES.maxSide} pixels on each side.`,
    );
  }
  if (width < rules.minSide || height < rules.minSide) {
    throw refuse(
      kind,
      `This image is ${width}×${height} pixels; use one at least ${rules.minSide}×${rules.minSide}.`,
    );
  }
  try {
    const { data, info } = await sharp(input, { limitInputPixels: IMAGE_RULES.maxSide ** 2 })
      .rotate()
      .resize(rules.size, rules.size, { fit: 'cover', position: sharp.strategy.attention })
      .webp({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height, contentType: 'image/webp' };
  } catch {
    throw refuse(kind, 'This image is damaged and cannot be read. Try exporting it again.');
  }
}

const xml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

/** Greedy word wrap by an estimate of the glyph width; the last kept line ends with '…'. */
export function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (let word of words) {
    while (word.length > maxChars) {
      if (line) {
        lines.push(line);
        line = '';
      }
      lines.push(word.slice(0, maxChars));
      word = word.slice(maxChars);
    }
    const next = line ? `${line} ${word}` : word;
    if (next.length > maxChars) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1]!;
  kept[maxLines - 1] = `${last.slice(0, Math.max(0, maxChars - 1)).trimEnd()}…`;
  return kept;
}

const W = 1200;
const H = 630;
const ART = 440;
const FONT = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";

/**
 * The 1200×630 picture social sites show for a shared station link: the cover art (or the
 * station's initials), its name, the broadcaster and the product.
 */
export async function renderStationCard(station: {
  name: string;
  username: string;
  cover: Buffer | null;
}): Promise<Buffer> {
  const lines = wrap(station.name, 15, 3);
  const nameSize = lines.length > 2 ? 54 : 62;
  const lineHeight = nameSize + 10;
  // Badge, name and @user centred beside the art (95..535).
  const block = 40 + 24 + lines.length * lineHeight + 50;
  const badgeTop = 95 + Math.round((ART - block) / 2);
  const nameTop = badgeTop + 40 + 24 + nameSize;
  const initials =
    station.name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => [...w][0]!.toUpperCase())
      .join('') || '♪';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#10131b"/><stop offset="1" stop-color="#1e1020"/>
    </linearGradient>
    <linearGradient id="art" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#ff5a5f"/><stop offset="1" stop-color="#6d3bd6"/>
    </linearGradient>
  </defs>
  <rect width="${W}" height="${H}" fill="url(#bg)"/>
  ${
    station.cover
      ? ''
      : `<rect x="80" y="95" width="${ART}" height="${ART}" rx="28" fill="url(#art)"/>
  <text x="${80 + ART / 2}" y="${95 + ART / 2 + 60}" font-family="${FONT}" font-size="170" font-weight="700" fill="#fff" text-anchor="middle">${xml(initials)}</text>`
  }
  <g font-family="${FONT}">
    <rect x="580" y="${badgeTop}" width="218" height="40" rx="20" fill="#c81e2a"/>
    <circle cx="604" cy="${badgeTop + 20}" r="7" fill="#fff"/>
    <text x="620" y="${badgeTop + 28}" font-size="22" font-weight="700" fill="#fff" letter-spacing="2">LIVE RADIO</text>
    ${lines
      .map(
        (l, i) =>
          `<text x="580" y="${nameTop + i * lineHeight}" font-size="${nameSize}" font-weight="700" fill="#eef1f7">${xml(l)}</text>`,
      )
      .join('\n    ')}
    <text x="580" y="${nameTop + (lines.length - 1) * lineHeight + 56}" font-size="34" fill="#a3acbf">@${xml(station.username)}</text>
    <text x="580" y="575" font-size="28" font-weight="700" fill="#ff7a7e">${xml(PRODUCT_NAME)}</text>
  </g>
</svg>`;
  const sharp = await loadSharp();
  const layers: OverlayOptions[] = [];
  if (station.cover) {
    const mask = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${ART}" height="${ART}"><rect width="${ART}" height="${ART}" rx="28" fill="#fff"/></svg>`,
    );
    const art = await sharp(station.cover)
      .resize(ART, ART, { fit: 'cover' })
      .composite([{ input: mask, blend: 'dest-in' }])
      .png()
      .toBuffer();
    layers.push({ input: art, left: 80, top: 95 });
  }
  return sharp(Buffer.from(svg)).composite(layers).png({ compressionLevel: 9 }).toBuffer();
}
