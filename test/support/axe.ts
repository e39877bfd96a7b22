/**
 * axe-core (the accessibility engine, from npm) run inside a page: injected through the DevTools
 * protocol, so the pages' `script-src 'self'` CSP does not stop it. Open shadow roots (the player)
 * are checked too.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** The serious and critical violations on the page as it is now (WCAG 2.x A/AA and best practices). */
export async function seriousViolations(page: Page | Frame): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: AxeApi }).axe;
    const result = await axe.run(document, {
      resultTypes: ['violations'],
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      },
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.map((n) => JSON.stringify(n.target)),
      }));

    interface AxeApi {
      run(
        context: Document,
        options: object,
      ): Promise<{
        violations: {
          id: string;
          impact?: string;
          help: string;
          nodes: { target: unknown }[];
        }[];
      }>;
    }
  });
}
