/**
 * Recordings in Debian's Chromium against the real API serving the built app: the studio's
 * recordings card (setting, retention, rename, publish, delete, the full-disk notice), the station
 * page's replays and the replay page (playback, duration, seeking with HTTP Range, the now-playing
 * timeline, download). Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Recording, RecordingSetting } from '@radiobroadcaster/contracts';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { EventBus } from '../../apps/api/src/events/event-bus.js';
import { RecordingsService } from '../../apps/api/src/recordings/recordings.service.js';
import { StationAudioTap } from '../../apps/api/src/recordings/station-audio-tap.js';
import { opusPackets, ScriptedTap } from '../../apps/api/testing/recording-fixtures.js';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, shootBothSizes, signInAt } from '../support/browser.js';
import { createStation, startWebApp, until, watchProblems } from '../support/web-app.js';

describe('recordings and replays in the browser', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let page: Page;
  let problems: string[];
  let stationId: string;
  const tap = new ScriptedTap();
  const packets = opusPackets(12);

  const api = async <T>(path: string, user: TestUser | null = owner): Promise<T> => {
    const res = await fetch(`${app.url}${path}`, { headers: user ? user.auth : {} });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  /** One broadcast of the 12 s tone, announcing a track at 6 s, recorded through the tap. */
  async function recordBroadcast(): Promise<Recording> {
    const bus = app.app.get(EventBus);
    const service = app.app.get(RecordingsService);
    const state = (status: 'live' | 'offline') => ({
      stationId,
      status,
      isActive: status === 'live',
      lastActiveAt: new Date().toISOString(),
    });
    await bus.publish('station.live', state('live'));
    await until('the recording to start', async () => service.recording(stationId), Boolean);
    tap.play(stationId, packets.slice(0, 300));
    await bus.publish('station.nowPlaying', {
      stationId,
      nowPlaying: { track: 'Second half', artist: 'Tone', album: null },
    });
    // the track is on the recording's timeline before the second half plays
    const db = new pg.Client({ connectionString: app.config.databaseUrl });
    await db.connect();
    try {
      await until(
        "the track on the recording's timeline",
        async () =>
          (
            await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM recordings, jsonb_array_elements(timeline) e
               WHERE station_id = $1 AND ended_at IS NULL AND e->>'track' = 'Second half'`,
              [stationId],
            )
          ).rows[0]!.n,
        (n) => n > 0,
      );
    } finally {
      await db.end();
    }
    tap.play(stationId, packets.slice(300));
    await bus.publish('station.offline', state('offline'));
    const list = await until(
      'the recording to be ready',
      () => api<Recording[]>(`/api/stations/${stationId}/recordings`),
      (l) => l[0]?.status === 'ready',
    );
    return list[0]!;
  }

  beforeAll(async () => {
    app = await startWebApp();
    app.app.get(StationAudioTap).attach(tap);
    browser = await launchChromium();
    owner = await signUp(app.url);
    stationId = (await createStation(app.url, owner, { name: 'Night Owls' })).station.id;
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('studio: recording is off until the owner turns it on; rename, who can play each, delete, retention, and a full disk is told', async () => {
    await signInAt(page, app.url, owner, `/studio?station=${stationId}`);
    const card = page.getByTestId('studio-recordings');
    await card.waitFor();
    const toggle = card.getByTestId('recording-enabled');
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await card.getByTestId('recordings-empty').waitFor();

    await toggle.check();
    await page.getByText('Recording is on').waitFor();
    await card.getByTestId('recording-retention').selectOption('30');
    await until(
      'the retention saved',
      () => api<RecordingSetting>(`/api/stations/${stationId}/recording`),
      (s) => s.retentionDays === 30,
    );
    expect(await api<RecordingSetting>(`/api/stations/${stationId}/recording`)).toEqual({
      stationId,
      enabled: true,
      retentionDays: 30,
    });

    const rec = await recordBroadcast();
    const row = card.locator(`[data-testid=recording][data-recording-id="${rec.id}"]`);
    await page.reload();
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('ready');
    expect(await row.textContent()).toContain('0:12');

    // Rename.
    await row.getByTestId('recording-rename').click();
    await row.getByTestId('field-title').fill('Owls, first night');
    await row.getByTestId('recording-rename-save').click();
    await until(
      'the new title',
      () => row.getByTestId('recording-title').textContent(),
      (t) => Boolean(t?.includes('Owls, first night')),
    );

    // Who can play it: private, strangers no longer see it; unlisted, its link plays but no list
    // shows it; as the station (public) again.
    const visibility = row.getByTestId('recording-visibility');
    expect(await visibility.inputValue()).toBe('');
    expect(await row.getByTestId('recording-visibility-pill').textContent()).toBe('Public');
    const choose = async (value: string, shown: string) => {
      await visibility.selectOption(value);
      await until(
        `the replay ${shown}`,
        () => row.getAttribute('data-visibility'),
        (v) => v === shown,
      );
      expect(await row.getByTestId('recording-visibility-pill').textContent()).toBe(
        shown[0]!.toUpperCase() + shown.slice(1),
      );
    };
    await choose('private', 'private');
    expect(await api<Recording[]>(`/api/stations/${stationId}/recordings`, null)).toEqual([]);
    const byLink = async () =>
      (
        await fetch(
          `${app.url}/api/users/${owner.username}/stations/night-owls/recordings/${rec.id}`,
        )
      ).status;
    expect(await byLink()).toBe(404);
    await choose('unlisted', 'unlisted');
    expect(await api<Recording[]>(`/api/stations/${stationId}/recordings`, null)).toEqual([]);
    expect(await byLink()).toBe(200);
    await shootBothSizes(page, 'studio-recordings-visibility', card);
    await choose('', 'public');
    expect(await visibility.inputValue()).toBe('');
    expect(
      (await api<Recording[]>(`/api/stations/${stationId}/recordings`, null)).map((r) => r.title),
    ).toEqual(['Owls, first night']);

    // A recording that the full disk stopped (the broadcast went on): the studio says so.
    const db = new pg.Client({ connectionString: app.config.databaseUrl });
    await db.connect();
    await db.query(
      `INSERT INTO recordings (station_id, status, error, ended_at, duration_seconds, size_bytes, storage_key)
       VALUES ($1, 'failed', 'The disk is full: the recording stopped (the broadcast goes on)', now(), 95, 800000, 'x/full.ogg')`,
      [stationId],
    );
    await db.end();
    await page.reload();
    const notice = card.getByTestId('recording-problem');
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      'The last recording stopped. The disk is full: the recording stopped (the broadcast goes on)',
    );
    expect(await card.getByTestId('recording').count()).toBe(2);
    await shootBothSizes(page, 'studio-recordings', card);

    // Delete asks first; Cancel keeps it, confirming deletes the file too.
    const failed = card.locator('[data-testid=recording][data-status=failed]');
    await failed.getByTestId('recording-delete').click();
    await failed.getByTestId('recording-delete-dialog-cancel').click();
    expect(await card.getByTestId('recording').count()).toBe(2);
    await failed.getByTestId('recording-delete').click();
    await failed.getByTestId('recording-delete-dialog-confirm').click();
    await page.getByText('Replay deleted').waitFor();
    await until(
      'one recording left',
      () => card.getByTestId('recording').count(),
      (n) => n === 1,
    );
    expect(problems).toEqual([]);
  }, 90_000);

  it('replay page: plays with the right duration, seeks with HTTP Range from the timeline, offers a download', async () => {
    const [rec] = await api<Recording[]>(`/api/stations/${stationId}/recordings`, null);
    expect(rec).toBeDefined();
    const listener = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const listenerProblems = watchProblems(listener);
    const ranges: { range: string | undefined; status: number }[] = [];
    listener.on('response', (res) => {
      if (res.url().includes('/audio.ogg'))
        ranges.push({ range: res.request().headers()['range'], status: res.status() });
    });

    // From the station page's replays to the replay page.
    await listener.goto(`${app.url}/${owner.username}/night-owls`);
    const item = listener.getByTestId('station-replay');
    await item.waitFor();
    expect(await item.count()).toBe(1);
    await item.getByRole('link', { name: 'Owls, first night' }).click();
    await listener.waitForURL(`**/${owner.username}/night-owls/replays/${rec!.id}`);
    await listener.getByTestId('replay').waitFor();
    expect(await listener.title()).toBe('Owls, first night (replay) | Radio Broadcaster');
    expect(await listener.getByTestId('replay-duration').textContent()).toBe('0:12');

    const audio = listener.getByTestId('replay-audio');
    const duration = await until(
      'the audio element to know its duration',
      () => audio.evaluate((el: HTMLAudioElement) => el.duration),
      (d) => Number.isFinite(d) && d > 0,
    );
    expect(duration).toBeCloseTo(12, 1);

    // A click on the timeline seeks there and plays on from there.
    const entry = listener.getByTestId('timeline-entry');
    expect(await entry.count()).toBe(1);
    expect(await entry.textContent()).toBe('0:06Second half — Tone');
    await entry.click();
    const t = await until(
      'playback past the timeline entry',
      () => audio.evaluate((el: HTMLAudioElement) => el.currentTime),
      (v) => v > 6.3,
    );
    expect(t).toBeGreaterThan(6);
    expect(t).toBeLessThan(12.01);
    expect(await entry.getAttribute('aria-current')).toBe('true');
    // The site's own controls follow: Pause, what is playing, the seek bar past its one mark (at 6 s of 12).
    expect(await listener.getByTestId('replay-play').getAttribute('aria-label')).toBe('Pause');
    expect(await listener.getByTestId('replay-now').textContent()).toBe('Second half — Tone');
    expect(Number(await listener.getByTestId('replay-seek').inputValue())).toBeGreaterThan(6);
    const marks = listener.getByTestId('replay-mark');
    expect(await marks.count()).toBe(1);
    expect(Number((await marks.getAttribute('style'))!.match(/left:\s*([\d.]+)%/)![1])).toBeCloseTo(
      50,
      -1,
    );
    // Chromium fetched the file by byte ranges (seeking), and the server answered 206.
    expect(ranges.some((r) => r.range?.startsWith('bytes=') && r.status === 206)).toBe(true);

    // Seeking back with the element itself (as its own slider does).
    await audio.evaluate((el: HTMLAudioElement) => {
      el.currentTime = 1;
    });
    await until(
      'the timeline entry no longer current',
      () => entry.getAttribute('aria-current'),
      (v) => v === null,
    );

    const download = await listener.evaluate(
      async (href) => {
        const res = await fetch(href);
        return {
          status: res.status,
          disposition: res.headers.get('content-disposition'),
          size: (await res.arrayBuffer()).byteLength,
        };
      },
      (await listener.getByTestId('replay-download').getAttribute('href'))!,
    );
    expect(download.status).toBe(200);
    expect(download.disposition).toMatch(/^attachment; filename="?recording-[\d-]+\.ogg"?$/);
    expect(download.size).toBe(rec!.sizeBytes);

    await audio.evaluate((el: HTMLAudioElement) => el.pause());
    await shootBothSizes(listener, 'replay');
    expect(listenerProblems).toEqual([]);
    await listener.close();
  }, 90_000);

  it('off air, the station page offers its latest replay (not a big Play that can only wait) and says when it was last live', async () => {
    const [rec] = await api<Recording[]>(`/api/stations/${stationId}/recordings`, null);
    const listener = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const listenerProblems = watchProblems(listener);
    await listener.goto(`${app.url}/${owner.username}/night-owls`);
    const latest = listener.getByTestId('latest-replay');
    await latest.waitFor();
    expect(await listener.getByTestId('station-status').textContent()).toBe('Off air');
    expect(await listener.getByTestId('station-last-live').textContent()).toMatch(
      /^Last live (a moment|\d+ minutes?) ago\.$/,
    );
    expect(await latest.textContent()).toContain('Owls, first night');
    // The one primary action plays the replay; waiting for the live station is the plain button.
    expect(await listener.locator('.station-hero .play-btn').count()).toBe(1);
    expect(await listener.getByTestId('play-button').textContent()).toBe(
      'Listen when it goes live',
    );
    // The replays come before the station's details and the embed code.
    const order = await listener.evaluate(() => {
      const replays = document.querySelector('[data-testid=station-replays]')!;
      const share = document.querySelector('.share-card')!;
      return replays.compareDocumentPosition(share) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    expect(order).toBeTruthy();
    await shootBothSizes(listener, 'polish-station-off-air-replay');
    await latest.getByTestId('latest-replay-play').click();
    await listener.waitForURL(`**/${owner.username}/night-owls/replays/${rec!.id}`);
    await listener.getByTestId('replay-play').waitFor();
    expect(listenerProblems).toEqual([]);
    await listener.close();
  }, 60_000);

  it('replay page of an unknown or unpublished recording says it is not found', async () => {
    const [rec] = await api<Recording[]>(`/api/stations/${stationId}/recordings`);
    const res = await fetch(`${app.url}/api/stations/recordings/update`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recordingId: rec!.id, published: false }),
    });
    expect(res.status).toBe(200);
    const stranger = await browser.newPage();
    await stranger.goto(`${app.url}/${owner.username}/night-owls/replays/${rec!.id}`);
    await stranger.getByRole('heading', { name: 'Replay not found' }).waitFor();
    await stranger.close();
  }, 30_000);
});
