import type { Collections } from './content.js';

export const DEFAULT_OUT: string;
export function buildContent(opts?: {
  dir?: string;
  root?: string;
  publicDir?: string | null;
}): Collections;
export function writeContent(collections: Collections, out?: string): string;
export function slugify(s: string): string;
export function plainText(md: string): string;
export function playerGzipBytes(playerFile?: string): number | null;
export function playerSizeText(bytes: number | null): string;
