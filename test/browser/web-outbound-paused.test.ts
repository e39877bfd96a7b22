/**
 * Relays and webhooks the outbound-address policy refuses show as paused, with the reason, in the
 * studio (Debian's Chromium against the built app). They were saved while the operator allowed
 * private networks; the server then starts without the switch. No connection is made to them
 * (the station is never live, no event is sent). Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import {
  createTestDatabase,
  signUp,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { createStation, startWebApp, watchProblems } from '../support/web-app.js';

const REASON =
  'Paused: 127.0.0.1 is a private or reserved address: this server only connects to public addresses';

describe('studio: relays and webhooks paused by the outbound policy', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let page: Page;
  let problems: string[];
  let stationId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const shared = { DATABASE_URL: db.url, AUTH_SECRET: 'c'.repeat(64) };
    const before = await startTestApp({
      env: { ...shared, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    owner = await signUp(before.url);
    stationId = (await createStation(before.url, owner, { name: 'Paused FM' })).station.id;
    await request(before.url)
      .post('/api/stations/relays')
      .set(owner.auth)
      .send({
        stationId,
        kind: 'icecast',
        url: 'http://127.0.0.1:6379',
        mount: '/live.ogg',
        password: 'pw',
      })
      .expect(201);
    await request(before.url)
      .post('/api/stations/webhooks')
      .set(owner.auth)
      .send({ stationId, url: 'http://127.0.0.1:6379/hook', events: ['station.live'] })
      .expect(201);
    await before.close();
    app = await startWebApp(shared);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    problems = watchProblems(page);
    await page.goto(`${app.url}/signin?redirect=${encodeURIComponent('/studio')}`);
    await page.getByTestId('field-email').fill(owner.email);
    await page.getByTestId('field-password').fill(owner.password);
    await page.getByTestId('signin-submit').click();
    await page.waitForURL((u) => u.pathname === '/studio');
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await db?.drop();
  });

  it('shows the relay paused by the server with the reason', async () => {
    const relay = page.getByTestId('relays').getByTestId('relay');
    await relay.scrollIntoViewIfNeeded();
    expect(await relay.getByTestId('relay-state').textContent()).toBe('Paused by the server');
    expect(await relay.getByTestId('relay-paused-reason').textContent()).toContain(REASON);
    expect(await relay.getByTestId('relay-toggle').textContent()).toBe('Resume');
    await page.getByTestId('relays').screenshot({ path: screenshotPath('studio-relay-paused') });
    expect(problems).toEqual([]);
  });

  it('shows the webhook paused by the server with the reason', async () => {
    await page.goto(`${app.url}/studio/${stationId}/webhooks`);
    const card = page.getByTestId('webhook');
    await card.waitFor();
    expect(await card.getByTestId('webhook-state').textContent()).toBe('Paused by the server');
    expect(await card.getByTestId('webhook-paused-reason').textContent()).toContain(REASON);
    await card.screenshot({ path: screenshotPath('studio-webhook-paused') });
    expect(problems).toEqual([]);
  });
});
