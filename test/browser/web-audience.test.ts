/**
 * The station owner's pages in Debian's Chromium against the real API serving the built app:
 * webhooks (add, test, log), listening stats (charts, CSV) and replays. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { WebhookReceiver } from '../../apps/api/testing/webhook-receiver.js';
import pg from 'pg';
import type { StationStats } from '@radiobroadcaster/contracts';
import { StatsRollup } from '../../apps/api/src/stats/stats-rollup.js';
import { launchChromium, screenshotPath, settled, signInAt } from '../support/browser.js';
import { createStation, startWebApp, until, watchProblems } from '../support/web-app.js';

/** The screenshots in docs/screenshots/ are copies of these (artifacts/screenshots/). */
const docShot = screenshotPath;

describe('station owner pages', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let page: Page;
  let problems: string[];
  let stationId: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    app = await startWebApp({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    browser = await launchChromium();
    owner = await signUp(app.url);
    stationId = (await createStation(app.url, owner, { name: 'Night Owls' })).station.id;
    receiver = await new WebhookReceiver('', [500]).start();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await browser?.close();
    await app?.close();
  });

  it('adds a webhook from the studio, sends a test event and shows the delivery log', async () => {
    await signInAt(page, app.url, owner, `/studio/${stationId}/webhooks`);
    await page.getByTestId('webhooks-empty').waitFor();
    expect(await page.title()).toBe('Webhooks | Radio Broadcaster');

    // A bad URL is refused next to its field and nothing is added.
    await page.getByTestId('field-url').fill('ftp://nope');
    await page.getByTestId('add-webhook').click();
    await page.getByTestId('field-error-url').waitFor();

    await page.getByTestId('field-url').fill(receiver.url);
    await page.getByTestId('field-description').fill('Announcer bot');
    await page.getByTestId('event-recording.ready').uncheck();
    await page.getByTestId('add-webhook').click();
    const card = page.getByTestId('webhook');
    await card.waitFor();
    expect(await card.getAttribute('data-url')).toBe(receiver.url);
    expect(await card.getByRole('list', { name: 'Events' }).textContent()).not.toContain(
      'recording.ready',
    );

    const secret = (
      (await (
        await fetch(`${app.url}/api/stations/${stationId}/webhooks`, { headers: owner.auth })
      ).json()) as { webhooks: { secret: string }[] }
    ).webhooks[0]!.secret;
    receiver.secret = secret;

    // The receiver answers 500 first: the toast says so; the second test succeeds.
    await card.getByTestId('webhook-test').click();
    await page.getByText('Test event failed').waitFor();
    await card.getByTestId('webhook-test').click();
    await page.getByText('Test event delivered').waitFor();
    expect(receiver.received.map((r) => [r.type, r.manualVerified])).toEqual([
      ['webhook.test', true],
      ['webhook.test', true],
    ]);

    await card.getByTestId('delivery-log').locator('summary').first().click();
    await until(
      'two deliveries in the log',
      () =>
        card
          .getByTestId('delivery')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
      (s) => s.length === 2,
    );
    expect(
      await card
        .getByTestId('delivery')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
    ).toEqual(['succeeded', 'failed']);
    await page.screenshot({ path: docShot('webhooks-1280x800'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: docShot('webhooks-390x844'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  }, 60_000);

  it('shows listening stats with a chart, breakdowns, broadcasts and a CSV export', async () => {
    await seedListening(app.config.databaseUrl!, stationId);
    await app.app.get(StatsRollup).backfill(new Date(Date.now() - 4 * 86_400_000), new Date());
    const api = (await (
      await fetch(
        `${app.url}/api/stations/${stationId}/stats?from=${new Date(Date.now() - 7 * 86_400_000).toISOString()}`,
        { headers: owner.auth },
      )
    ).json()) as StationStats;
    expect(api.sessions).toBe(150);
    expect(api.broadcasts).toHaveLength(3);

    await page.goto(`${app.url}/studio/${stationId}/stats`);
    await page.getByTestId('stats-page').waitFor();
    await page.locator('[data-testid=listeners-chart] canvas').first().waitFor();
    expect(await page.title()).toBe('Listening stats | Radio Broadcaster');
    expect(await page.getByTestId('stat-sessions').textContent()).toBe('150');
    expect(await page.getByTestId('stat-peak').textContent()).toBe(String(api.peakListeners));
    expect(await page.getByTestId('broadcast-row').count()).toBe(3);
    expect(await page.getByTestId('by-domain').locator('li').count()).toBe(api.byDomain.length);
    expect(await page.getByTestId('by-domain').textContent()).toContain('blog.example.com');

    const csv = await page.evaluate(
      async (href) => {
        const res = await fetch(href);
        return { status: res.status, text: await res.text() };
      },
      (await page.getByTestId('stats-csv').getAttribute('href'))!,
    );
    expect(csv.status).toBe(200);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('interval_start,peak_listeners,listening_hours,sessions');
    expect(lines.slice(1).reduce((n, l) => n + Number(l.split(',')[3]), 0)).toBe(150);

    await page.screenshot({ path: docShot('stats-1280x800'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await settled(page);
    await page.screenshot({ path: docShot('stats-390x844'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // One broadcast on its own.
    await page.getByTestId('broadcast-row').first().locator('a').click();
    await page.getByTestId('stats-scope').waitFor();
    const first = api.broadcasts[0]!;
    await until(
      'the broadcast figures',
      () => page.getByTestId('stat-sessions').textContent(),
      (t) => t === String(first.sessions),
    );
    expect(problems).toEqual([]);
  }, 90_000);
});

/** Three evenings of scripted listeners (deterministic), as if served over the last days. */
async function seedListening(databaseUrl: string, stationId: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const day = 86_400_000;
    const today = Math.floor(Date.now() / day) * day;
    const broadcasts = [
      { start: today - 3 * day + 19 * 3_600_000, hours: 2, listeners: 60 },
      { start: today - 2 * day + 20 * 3_600_000, hours: 1.5, listeners: 50 },
      { start: today - day + 18 * 3_600_000, hours: 1, listeners: 40 },
    ];
    const where = [
      ['site', null],
      ['site', null],
      ['embed', 'blog.example.com'],
      ['embed', 'shop.example.org'],
      ['direct', null],
    ] as const;
    const clients = ['desktop', 'desktop', 'mobile', 'mobile', 'player', 'app'];
    for (const b of broadcasts) {
      const end = b.start + b.hours * 3_600_000;
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO broadcasts (station_id, started_at, ended_at) VALUES ($1, $2, $3) RETURNING id`,
        [stationId, new Date(b.start), new Date(end)],
      );
      for (let i = 0; i < b.listeners; i++) {
        const start = b.start + rand() * rand() * (end - b.start) * 0.9;
        const length = Math.min(end - start, 30_000 + rand() * rand() * 90 * 60_000);
        const [source, domain] = where[Math.floor(rand() * where.length)]!;
        const transport = source === 'direct' && rand() < 0.7 ? 'http' : 'webrtc';
        await c.query(
          `INSERT INTO listening_sessions (id, station_id, broadcast_id, started_at, ended_at, transport, source, domain, client, node_id)
           VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, 'seed')`,
          [
            stationId,
            rows[0]!.id,
            new Date(start),
            new Date(start + length),
            transport,
            source,
            domain,
            transport === 'http' ? 'player' : clients[Math.floor(rand() * clients.length)],
          ],
        );
      }
    }
  } finally {
    await c.end();
  }
}
