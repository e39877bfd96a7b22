/**
 * The chat kept with a recording, replayed in step with the audio in Debian's Chromium: a seek
 * moves the chat to what had been said by then. The recording is made through the scripted tap
 * (12 s of tone in milliseconds), so the messages are placed at 2 s and 9 s of it in the database.
 * Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Recording } from '@radiobroadcaster/contracts';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { EventBus } from '../../apps/api/src/events/event-bus.js';
import { RecordingsService } from '../../apps/api/src/recordings/recordings.service.js';
import { StationAudioTap } from '../../apps/api/src/recordings/station-audio-tap.js';
import { opusPackets, ScriptedTap } from '../../apps/api/testing/recording-fixtures.js';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { createStation, startWebApp, until, watchProblems } from '../support/web-app.js';

describe('chat replay beside a recording', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  let recording: Recording;
  let page: Page;
  const tap = new ScriptedTap();

  beforeAll(async () => {
    app = await startWebApp();
    app.app.get(StationAudioTap).attach(tap);
    browser = await launchChromium();
    owner = await signUp(app.url, 'nightowl');
    const { station } = await createStation(app.url, owner, { name: 'Night Owls' });
    stationId = station.id;
    const on = await fetch(`${app.url}/api/stations/recording`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ stationId, enabled: true }),
    });
    expect(on.status).toBe(200);
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
    tap.play(stationId, opusPackets(12));
    await bus.publish('station.offline', state('offline'));
    const list = await until(
      'the recording to be ready',
      async () =>
        (await (
          await fetch(`${app.url}/api/stations/${stationId}/recordings`, { headers: owner.auth })
        ).json()) as Recording[],
      (l) => l[0]?.status === 'ready',
    );
    recording = list[0]!;
    const publish = await fetch(`${app.url}/api/stations/recordings/update`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recordingId: recording.id, published: true }),
    });
    expect(publish.status).toBe(200);
    const db = new pg.Client({ connectionString: app.config.databaseUrl });
    await db.connect();
    try {
      for (const [offset, name, text] of [
        [2, 'Moonbeam', 'Early hello at two seconds'],
        [9, 'Stargazer', 'Late note at nine seconds'],
      ] as const)
        await db.query(
          `INSERT INTO chat_messages (station_id, guest_id, author_name, author_kind, text, sent_at)
           VALUES ($1, gen_random_uuid(), $2, 'guest', $3, $4::timestamptz + make_interval(secs => $5))`,
          [stationId, name, text, recording.startedAt, offset],
        );
    } finally {
      await db.end();
    }
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows the chat in step with playback, and a seek moves it', async () => {
    const problems = watchProblems(page);
    await page.goto(`${app.url}/${owner.username}/night-owls/replays/${recording.id}`);
    const chat = page.getByTestId('replay-chat');
    await chat.waitFor();
    await chat.getByText('2 messages during this broadcast').waitFor();
    const audio = page.getByTestId('replay-audio');
    await until(
      'the audio to know its duration',
      () => audio.evaluate((el: HTMLAudioElement) => el.duration),
      (d) => Number.isFinite(d) && d > 0,
    );
    const texts = () => chat.getByTestId('chat-text').allTextContents();
    const seek = (s: number) =>
      audio.evaluate((el: HTMLAudioElement, t: number) => {
        el.currentTime = t;
      }, s);
    await seek(5);
    await until('one message at 5 s', texts, (t) => t.join('|') === 'Early hello at two seconds');
    await seek(10);
    await until(
      'both at 10 s',
      texts,
      (t) => t.join('|') === 'Early hello at two seconds|Late note at nine seconds',
    );
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await chat.scrollIntoViewIfNeeded();
      const path = screenshotPath(`replay-chat-${width}x${height}`);
      await page.screenshot({ path });
      if (process.env.SHOTS_DIR)
        await page.screenshot({
          path: `${process.env.SHOTS_DIR}/replay-chat-${width}x${height}.png`,
        });
    }
    await seek(1);
    await until('none at 1 s', texts, (t) => t.length === 0);
    expect(problems).toEqual([]);
  });
});
