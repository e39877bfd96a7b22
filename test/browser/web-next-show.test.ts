/**
 * The station page's "Next live in 2 h 13 min — {title}" in Debian's Chromium against the real API
 * serving the built app, and its switch to live when the station goes live. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { EventBus } from '../../apps/api/src/events/event-bus.js';
import { StationsRepository } from '../../apps/api/src/stations/stations.repository.js';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { createStation, startWebApp, watchProblems } from '../support/web-app.js';

describe('next show on the station page', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium();
    owner = await signUp(app.url);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('counts down to the next show, then shows live once the station goes live', async () => {
    const { station } = await createStation(app.url, owner, { name: 'Jazz Nights' });
    // 2 h 12 min 30 s ahead: "2 h 13 min" for the next 30 s, "2 h 12 min" after that.
    const startsAt = new Date(Date.now() + (2 * 60 + 12.5) * 60_000).toISOString();
    const res = await fetch(`${app.url}/api/stations/shows`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        stationId: station.id,
        title: 'Friday Night Jazz',
        startsAt,
        durationMinutes: 120,
        timeZone: 'Europe/Berlin',
      }),
    });
    expect(res.status).toBe(201);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = watchProblems(page);
    await page.goto(`${app.url}/${owner.username}/${station.slug}`);
    const next = page.getByTestId('next-show');
    await next.waitFor({ timeout: 30_000 });
    expect(await next.textContent()).toMatch(/^Next live in 2 h 1[23] min — Friday Night Jazz$/);
    await page.screenshot({ path: screenshotPath('station-next-show-1280x800') });

    // Going live is the broadcaster's act: the page follows the station's state by itself.
    await app.app.get(StationsRepository).setState(station.id, 'live', true, true);
    await app.app.get(EventBus).publish('station.live', {
      stationId: station.id,
      status: 'live',
      isActive: true,
      lastActiveAt: new Date().toISOString(),
    });
    await next.waitFor({ state: 'detached', timeout: 30_000 });
    expect(problems).toEqual([]);
    await page.close();
  });
});
