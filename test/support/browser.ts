import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type LaunchOptions, type Page } from 'playwright-core';

/** Debian's Chromium, never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

/**
 * Chromium with a fresh profile (playwright's `launch` always uses a temporary one; it refuses
 * `--user-data-dir`); `fakeMedia` adds a fake microphone/screen that needs no prompt.
 */
export async function launchChromium(
  opts: { fakeMedia?: boolean; extraArgs?: string[] } = {},
): Promise<Browser> {
  const args = [
    ...FLAGS,
    ...(opts.fakeMedia
      ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']
      : []),
    ...(opts.extraArgs ?? []),
  ];
  const launch: LaunchOptions = { executablePath: CHROMIUM, args, headless: true };
  return chromium.launch(launch);
}

/** Screenshots land in `artifacts/screenshots/` (kept by CI as artifacts). */
export function screenshotPath(name: string): string {
  const dir = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../artifacts/screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/**
 * Listens to a MediaStream in the page through a WebAudio analyser and returns how far the
 * tone's frequency bin stands above the spectrum's median (dB), the best over `ms`.
 * The stream is the `srcObject` of the `<audio>` matched by `audioSelector` (inside the shadow
 * root of `hostSelector` when given). No eval, so it works under the pages' strict CSP.
 */
export async function toneProminence(
  page: Page,
  where: { audioSelector: string; hostSelector?: string },
  freq: number,
  ms = 3000,
): Promise<number> {
  return page.evaluate(
    async ({ where, freq, ms }) => {
      const root: ParentNode | null | undefined = where.hostSelector
        ? document.querySelector(where.hostSelector)?.shadowRoot
        : document;
      const el = root?.querySelector(where.audioSelector) as HTMLMediaElement | null | undefined;
      const stream = (el?.srcObject as MediaStream | null | undefined) ?? null;
      if (!stream) return -1;
      const ctx = new AudioContext();
      await ctx.resume();
      const source = ctx.createMediaStreamSource(stream);
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 4096;
      source.connect(analyser);
      const data = new Float32Array(analyser.frequencyBinCount);
      const bin = Math.round((freq / ctx.sampleRate) * analyser.fftSize);
      let best = -Infinity;
      const end = performance.now() + ms;
      while (performance.now() < end) {
        await new Promise((r) => setTimeout(r, 100));
        analyser.getFloatFrequencyData(data);
        const peak = Math.max(data[bin - 1]!, data[bin]!, data[bin + 1]!);
        const sorted = Array.from(data)
          .filter(Number.isFinite)
          .sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)] ?? -200;
        if (Number.isFinite(peak)) best = Math.max(best, peak - median);
      }
      await ctx.close();
      return best;
    },
    { where, freq, ms },
  );
}
