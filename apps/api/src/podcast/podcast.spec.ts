/**
 * A station's public replays as a podcast, read by software nobody here wrote: Debian's
 * python3-podcastparser and python3-feedparser read every field, gPodder's `gpo` subscribes and
 * downloads the newest episode, which ffprobe reads with the right duration; chapters match the
 * now-playing timeline; owners retitle, annotate and drop episodes; unpublished replays stay out.
 * A private station's feed and calendar open only at a subscriber's own secret address, which
 * gpo subscribes to and downloads from, and which stops working when their access is revoked.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Invite,
  PodcastResponse,
  Recording,
  StationFeeds,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { waitUntil } from '../../../../test/support/wait.js';
import { AccessService } from '../access/access.service.js';
import { EventBus } from '../events/event-bus.js';
import { StationsService } from '../stations/stations.service.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import { StationAudioTap } from '../recordings/station-audio-tap.js';
import { opusPackets, ScriptedTap } from '../../testing/recording-fixtures.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { podcastGuid } from './podcast-feed.js';

const run = promisify(execFile);

/** Runs Debian's python3 with `script`, the feed on stdin; its stdout as JSON. */
async function python(script: string, xml: string): Promise<unknown> {
  const child = execFile('/usr/bin/python3', ['-c', script], { maxBuffer: 1 << 24 });
  child.stdin!.end(xml);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`python3 exited ${code}: ${err}`);
  return JSON.parse(out);
}

const PODCASTPARSER = `
import json, sys, io, podcastparser
feed = podcastparser.parse('http://feed.test/podcast.xml', io.BytesIO(sys.stdin.buffer.read()))
print(json.dumps(feed))
`;

const FEEDPARSER = `
import json, sys, feedparser
d = feedparser.parse(sys.stdin.buffer.read())
f = d.feed
print(json.dumps({
  'bozo': d.bozo, 'version': d.version, 'title': f.get('title'), 'link': f.get('link'),
  'author': f.get('author'), 'image': (f.get('image') or {}).get('href'),
  'itunes_explicit': f.get('itunes_explicit'), 'podcast_guid': f.get('podcast_guid'),
  'entries': [{
    'id': e.get('id'), 'title': e.get('title'), 'summary': e.get('summary'), 'link': e.get('link'),
    'published': e.get('published'), 'duration': e.get('itunes_duration'),
    'enclosures': [{'href': x.get('href'), 'length': x.get('length'), 'type': x.get('type')} for x in e.get('enclosures', [])],
  } for e in d.entries],
}))
`;

async function ffprobeDuration(path: string): Promise<number> {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'default=nw=1:nk=1',
    path,
  ]);
  return Number(stdout.toString().trim());
}

describe('podcast feed', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let stationId: string;
  let feedPath: string;
  const tap = new ScriptedTap();
  const packets = opusPackets(8);
  const recordings: Recording[] = [];

  const state = (status: 'live' | 'offline') => ({
    stationId,
    status,
    isActive: status === 'live',
    lastActiveAt: new Date().toISOString(),
  });

  /** One broadcast of `n` packets (20 ms each), with a now-playing change after `at` of them. */
  async function broadcast(n: number, at: number, track: string): Promise<Recording> {
    const service = t.app.get(RecordingsService);
    const bus = t.app.get(EventBus);
    await bus.publish('station.live', state('live'));
    await waitUntil(() => service.recording(stationId) !== null, 15_000, 'recording to start');
    tap.play(stationId, packets.slice(0, at));
    await bus.publish('station.nowPlaying', {
      stationId,
      nowPlaying: { track, artist: 'Tone Quartet', album: null },
    });
    await waitUntil(
      async () =>
        (
          (await request(t.url).get(`/api/stations/${stationId}/recordings`).set(owner.auth))
            .body as Recording[]
        ).some((r) => r.status === 'recording' && r.timeline.length > 0),
      15_000,
      'the now-playing change in the timeline',
    );
    tap.play(stationId, packets.slice(at, n));
    await bus.publish('station.offline', state('offline'));
    let done: Recording | undefined;
    await waitUntil(
      async () => {
        const list = (
          await request(t.url).get(`/api/stations/${stationId}/recordings`).set(owner.auth)
        ).body as Recording[];
        done = list.find((r) => r.status === 'ready' && !recordings.some((x) => x.id === r.id));
        return done !== undefined;
      },
      20_000,
      'the recording to be ready',
    );
    recordings.push(done!);
    return done!;
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'error' } });
    t.app.get(StationAudioTap).attach(tap);
    owner = await signUp(t.url);
    stranger = await signUp(t.url);
    const station = (
      (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Replay Radio' }))
        .body as CreateStationResponse
    ).station;
    stationId = station.id;
    feedPath = `/${owner.username}/${station.slug}/podcast.xml`;
    await request(t.url)
      .post('/api/stations/recording')
      .set(owner.auth)
      .send({ stationId, enabled: true })
      .expect(200);
    await broadcast(250, 100, 'First light'); // 5 s, chapter at 2 s
    await broadcast(400, 150, 'Night swim'); // 8 s, chapter at 3 s
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  const feed = async () => (await request(t.url).get(feedPath).expect(200)).text;

  it('podcastparser reads every field; GUIDs, enclosures and durations are right', async () => {
    const res = await request(t.url).get(feedPath).expect(200);
    expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    const p = (await python(PODCASTPARSER, res.text)) as {
      title: string;
      link: string;
      cover_url: string;
      episodes: {
        title: string;
        guid: string;
        link: string;
        published: number;
        total_time: number;
        enclosures: { url: string; file_size: number; mime_type: string }[];
        chapters?: unknown;
      }[];
    };
    expect(p.title).toBe('Replay Radio');
    expect(p.link).toBe(`${t.config.publicUrl}/${owner.username}/replay-radio`);
    expect(p.cover_url).toBe(`${t.config.publicUrl}/${owner.username}/replay-radio/podcast.jpg`);
    expect(p.episodes).toHaveLength(2);
    // Newest first.
    const [newest, older] = p.episodes as [(typeof p.episodes)[0], (typeof p.episodes)[0]];
    expect(newest.guid).toBe(`radiobroadcaster:recording:${recordings[1]!.id}`);
    expect(older.guid).toBe(`radiobroadcaster:recording:${recordings[0]!.id}`);
    expect(newest.total_time).toBe(8);
    expect(older.total_time).toBe(5);
    expect(newest.enclosures).toEqual([
      { url: recordings[1]!.url, file_size: recordings[1]!.sizeBytes, mime_type: 'audio/ogg' },
    ]);
    expect(newest.link).toBe(recordings[1]!.pageUrl);
    expect(newest.published).toBe(Math.floor(Date.parse(recordings[1]!.startedAt) / 1000));

    // The artwork is a square JPEG.
    const art = await request(t.url)
      .get(`/${owner.username}/replay-radio/podcast.jpg`)
      .buffer(true)
      .expect(200);
    expect(art.headers['content-type']).toBe('image/jpeg');
    expect((art.body as Buffer).subarray(0, 3).toString('hex')).toBe('ffd8ff');
  });

  it('feedparser reads it as RSS 2.0 without complaint, with the iTunes and Podcasting 2.0 fields', async () => {
    const xml = await feed();
    const f = (await python(FEEDPARSER, xml)) as {
      bozo: boolean;
      version: string;
      title: string;
      author: string;
      image: string;
      podcast_guid: string | null;
      entries: {
        id: string;
        duration: string;
        enclosures: { href: string; length: string; type: string }[];
      }[];
    };
    expect(f.bozo).toBe(false);
    expect(f.version).toBe('rss20');
    expect(f.title).toBe('Replay Radio');
    expect(f.author).toBe(`User ${owner.username}`);
    expect(f.image).toMatch(/\/podcast\.jpg$/);
    expect(f.entries.map((e) => e.duration)).toEqual(['00:00:08', '00:00:05']);
    expect(f.entries[0]!.enclosures[0]).toEqual({
      href: recordings[1]!.url,
      length: String(recordings[1]!.sizeBytes),
      type: 'audio/ogg',
    });
    expect(xml).toContain(
      `<podcast:guid>${podcastGuid(`${t.config.publicUrl}${feedPath}`)}</podcast:guid>`,
    );
  });

  it('chapters come from the now-playing timeline', async () => {
    const xml = await feed();
    const url = `${t.config.publicUrl}/api/recordings/${recordings[1]!.id}/chapters.json`;
    expect(xml).toContain(`<podcast:chapters url="${url}" type="application/json+chapters"/>`);
    const res = await request(t.url).get(new URL(url).pathname).expect(200);
    expect(res.headers['content-type']).toBe('application/json+chapters; charset=utf-8');
    expect(JSON.parse(res.text)).toEqual({
      version: '1.2.0',
      chapters: [
        {
          startTime: recordings[1]!.timeline[0]!.offsetSeconds,
          title: 'Tone Quartet – Night swim',
        },
      ],
    });
    expect(recordings[1]!.timeline[0]!.offsetSeconds).toBeCloseTo(3, 0);
  });

  /** gPodder's `gpo` in a home of its own: subscribes to `url`, downloads, lists the files. */
  async function gpoDownload(url: string): Promise<{ list: string; files: string[] }> {
    const home = mkdtempSync(join(tmpdir(), 'rb-gpo-'));
    const downloads = join(home, 'downloads');
    const env = { ...process.env, GPODDER_HOME: home, GPODDER_DOWNLOAD_DIR: downloads };
    const gpo = (...args: string[]) => run('gpo', args, { env, timeout: 60_000 });
    await gpo('subscribe', url);
    const list = await gpo('list');
    await gpo('download');
    const files = readdirSync(downloads, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name));
    return { list: list.stdout, files };
  }

  it("gPodder's gpo subscribes and downloads the newest episode, which ffprobe reads with the right duration", async () => {
    const { list, files } = await gpoDownload(`${t.config.publicUrl}${feedPath}`);
    expect(list).toContain('Replay Radio');
    expect(files.length).toBeGreaterThanOrEqual(1);
    const newest = files.find((f) => statSync(f).size === recordings[1]!.sizeBytes);
    expect(newest).toBeDefined();
    expect(await ffprobeDuration(newest!)).toBeCloseTo(8, 0);
  }, 120_000);

  it('owners retitle, annotate and drop episodes; strangers cannot; GUIDs never change', async () => {
    const [older, newest] = recordings as [Recording, Recording];
    await request(t.url)
      .post('/api/stations/podcast/episodes/update')
      .set(stranger.auth)
      .send({ recordingId: newest.id, title: 'Mine now' })
      .expect(403);
    await request(t.url)
      .post('/api/stations/podcast/episodes/update')
      .set(owner.auth)
      .send({ recordingId: newest.id, title: '' })
      .expect(400);
    const edited = await request(t.url)
      .post('/api/stations/podcast/episodes/update')
      .set(owner.auth)
      .send({ recordingId: newest.id, title: 'Night Swim, live', notes: 'Recorded <live> & loud.' })
      .expect(200);
    expect(edited.body).toMatchObject({
      title: 'Night Swim, live',
      notes: 'Recorded <live> & loud.',
      inFeed: true,
      publiclyListed: true,
    });
    await request(t.url)
      .post('/api/stations/podcast/episodes/update')
      .set(owner.auth)
      .send({ recordingId: older.id, inFeed: false })
      .expect(200);
    const p = (await python(PODCASTPARSER, await feed())) as {
      episodes: { title: string; guid: string; description_html: string }[];
    };
    expect(p.episodes).toEqual([
      expect.objectContaining({
        title: 'Night Swim, live',
        guid: `radiobroadcaster:recording:${newest.id}`,
        // Plain-text notes, shown as written (HTML-escaped where apps render HTML).
        description_html: '<p>Recorded &lt;live&gt; &amp; loud.</p>',
      }),
    ]);
    const mine = (
      await request(t.url).get(`/api/stations/${stationId}/podcast`).set(owner.auth).expect(200)
    ).body as PodcastResponse;
    expect(mine.feedUrl).toBe(`${t.config.publicUrl}${feedPath}`);
    expect(mine.episodes.map((e) => e.inFeed)).toEqual([true, false]);
    await request(t.url).get(`/api/stations/${stationId}/podcast`).set(stranger.auth).expect(403);

    // Unpublished: out of the feed, and its chapters are nobody's business.
    await request(t.url)
      .post('/api/stations/recordings/update')
      .set(owner.auth)
      .send({ recordingId: newest.id, published: false })
      .expect(200);
    expect(
      ((await python(PODCASTPARSER, await feed())) as { episodes: unknown[] }).episodes,
    ).toEqual([]);
    await request(t.url).get(`/api/recordings/${newest.id}/chapters.json`).expect(404);
    await request(t.url).get(`/nobody-here/replay-radio/podcast.xml`).expect(404);
  });

  it("a private station's feed and calendar open only at a subscriber's own address, until their access is revoked", async () => {
    const calendarPath = feedPath.replace(/podcast\.xml$/, 'schedule.ics');
    await request(t.url)
      .post('/api/stations/update')
      .set(owner.auth)
      .send({ stationId, visibility: 'private' })
      .expect(200);
    // The public addresses refuse, for strangers and signed-in strangers alike.
    for (const path of [feedPath, calendarPath])
      for (const auth of [{}, stranger.auth]) {
        const res = await request(t.url).get(path).set(auth).expect(403);
        expect(res.body).toMatchObject({ error: 'PRIVATE_STATION' });
      }
    await request(t.url).get(`/api/stations/${stationId}/feeds`).set(stranger.auth).expect(403);
    await request(t.url).get(`/api/stations/${stationId}/feeds?grant=x.y`).expect(403);

    // Two listeners let in: one by an invite link, one by the password.
    const invite = (
      await request(t.url)
        .post('/api/stations/invites')
        .set(owner.auth)
        .send({ stationId, label: 'members' })
        .expect(201)
    ).body as Invite;
    await request(t.url)
      .post('/api/stations/password')
      .set(owner.auth)
      .send({ stationId, password: 'choir-2026' })
      .expect(200);
    const access = t.app.get(AccessService);
    const station = await t.app.get(StationsService).entity(stationId);
    const grantOf = async (how: { invite?: string; password?: string }) =>
      access.issueGrant(station, (await access.admit(station, how, null))!, null, t.url).token;
    const feedsOf = async (grant: string) =>
      (
        await request(t.url)
          .get(`/api/stations/${stationId}/feeds?grant=${encodeURIComponent(grant)}`)
          .expect(200)
      ).body as StationFeeds;
    const invited = await feedsOf(await grantOf({ invite: invite.token }));
    const byPassword = await feedsOf(await grantOf({ password: 'choir-2026' }));
    expect(invited.personal).toBe(true);
    expect(invited.podcastUrl).toMatch(
      new RegExp(`^${t.config.publicUrl}${feedPath}\\?key=.{40,}$`),
    );
    expect(invited.calendarUrl).toMatch(
      new RegExp(`^${t.config.publicUrl}${calendarPath}\\?key=.{40,}$`),
    );
    expect(byPassword.podcastUrl).not.toBe(invited.podcastUrl);

    // A podcast reader subscribes at the invitee's address and downloads the private replay.
    const path = (u: string) => u.slice(t.config.publicUrl.length);
    const res = await request(t.url).get(path(invited.podcastUrl)).expect(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const p = (await python(PODCASTPARSER, res.text)) as {
      title: string;
      episodes: { guid: string; enclosures: { url: string }[] }[];
    };
    // the newest replay (made private earlier) is listed to the station's listeners
    expect(p.episodes.map((e) => e.guid)).toEqual([
      `radiobroadcaster:recording:${recordings[1]!.id}`,
    ]);
    const audioUrl = p.episodes[0]!.enclosures[0]!.url;
    expect(audioUrl).toContain('grant=');
    const chaptersUrl = /<podcast:chapters url="([^"]+)"/
      .exec(res.text)![1]!
      .replace(/&amp;/g, '&');
    expect(chaptersUrl).toContain('grant=');
    await request(t.url).get(`/api/recordings/${recordings[1]!.id}/chapters.json`).expect(404);
    await request(t.url).get(path(chaptersUrl)).expect(200);
    const { list, files } = await gpoDownload(invited.podcastUrl);
    expect(list).toContain('Replay Radio');
    const downloaded = files.find((f) => statSync(f).size === recordings[1]!.sizeBytes);
    expect(downloaded).toBeDefined();
    expect(await ffprobeDuration(downloaded!)).toBeCloseTo(8, 0);
    expect((await request(t.url).get(path(invited.calendarUrl)).expect(200)).text).toContain(
      'BEGIN:VCALENDAR',
    );

    // A changed key is refused; so is one of another station.
    const tampered = `${path(invited.podcastUrl).slice(0, -3)}xyz`;
    expect((await request(t.url).get(tampered).expect(403)).body).toMatchObject({
      error: 'PRIVATE_STATION',
    });

    // Revoking the invite closes the invitee's feed, calendar and audio links; the password
    // listener's go on.
    await request(t.url).delete(`/api/stations/invites/${invite.id}`).set(owner.auth).expect(204);
    for (const u of [invited.podcastUrl, invited.calendarUrl])
      expect((await request(t.url).get(path(u)).expect(403)).body).toMatchObject({
        error: 'GRANT_REVOKED',
      });
    await request(t.url).get(path(audioUrl)).expect(404);
    await request(t.url).get(path(chaptersUrl)).expect(404);
    await request(t.url).get(path(byPassword.podcastUrl)).expect(200);
    await request(t.url).get(path(byPassword.calendarUrl)).expect(200);
    // ...until the password changes.
    await request(t.url)
      .post('/api/stations/password')
      .set(owner.auth)
      .send({ stationId, password: 'choir-2027' })
      .expect(200);
    await request(t.url).get(path(byPassword.podcastUrl)).expect(403);

    // The owner's studio shows the owner's own address, which works.
    const mine = (
      await request(t.url).get(`/api/stations/${stationId}/podcast`).set(owner.auth).expect(200)
    ).body as PodcastResponse;
    expect(mine.feedUrl).toContain('?key=');
    await request(t.url).get(path(mine.feedUrl)).expect(200);
  }, 120_000);
});
