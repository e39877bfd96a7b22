/**
 * Following stations and the mails followers get (issue 29), on two API nodes sharing PostgreSQL
 * and Redis, with a real SMTP server on loopback: one mail per follower per go-live whichever node
 * hears it, flaps told once, RFC 8058 one-click unsubscribe without signing in, hard bounces turn
 * mail off, show reminders, guests by double opt-in, follow floods refused.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  FollowerCounts,
  FollowState,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  linkAfter,
  type NoticeMail,
  NoticeMailSink,
  rawHeader,
} from '../../../../test/support/notice-mail-sink.js';
import { holdsFor, waitUntil } from '../../../../test/support/wait.js';
import { StationsService } from '../stations/stations.service.js';
import {
  createTestDatabase,
  signUp,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';
import { FollowNotifier } from './follow-notifier.js';

const FOLLOW_LIMIT = 25;

/** The RFC 8058 one-click URL of a mail (its List-Unsubscribe header, as sent). */
const unsubscribeOf = (mail: NoticeMail) =>
  rawHeader(mail, 'List-Unsubscribe')!.replace(/^<|>$/g, '');

describe('followers and their notices', () => {
  const sink = new NoticeMailSink();
  let a: TestApp;
  let b: TestApp;
  let dropDb: () => Promise<void>;
  let db: DataSource;
  let owner: TestUser;
  let fan: TestUser;
  let stationId: string;
  let stationUrl: string;
  let receiver: Server;
  const hooks: { type: string; data: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    await sink.start();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        hooks.push(JSON.parse(body) as { type: string; data: Record<string, unknown> });
        res.end('ok');
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const created = await createTestDatabase();
    dropDb = created.drop;
    const env = {
      DATABASE_URL: created.url,
      SMTP_URL: sink.url,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_FOLLOW_PER_HOUR: String(FOLLOW_LIMIT),
      // One public address for the cluster, as behind a load balancer.
      PUBLIC_URL: 'http://radio.test',
      // The test's webhook receiver is on loopback.
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: process.env.FOLLOW_LOG ?? 'silent',
    };
    a = await startTestApp({ redis: true, env });
    b = await startTestApp({ redis: true, env });
    db = a.app.get(DataSource);
    owner = await signUp(a.url);
    fan = await signUp(b.url);
    const res = await request(a.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Night Owl Radio' })
      .expect(201);
    const station = (res.body as CreateStationResponse).station;
    stationId = station.id;
    stationUrl = `http://radio.test/${owner.username}/${station.slug}`;
    const { port } = receiver.address() as { port: number };
    await request(a.url)
      .post('/api/stations/webhooks')
      .set(owner.auth)
      .send({
        stationId,
        url: `http://127.0.0.1:${port}/hook`,
        events: ['show.scheduled', 'show.starting', 'station.followed'],
      })
      .expect(201);
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropDb?.();
    await sink.close();
    receiver?.close();
  });

  const live = (app: TestApp) =>
    app.app.get(StationsService).transition(stationId, 'live', true, true);
  const offline = (app: TestApp) =>
    app.app.get(StationsService).transition(stationId, 'offline', false, true);
  /** As if the last notice and the last time off air were long ago (no flap). */
  const forgetFlaps = () =>
    db.query(
      `UPDATE follow_station_state SET last_live_notice_at = now() - interval '1 hour',
         last_offline_at = now() - interval '1 hour' WHERE station_id = $1`,
      [stationId],
    );
  const counts = async () =>
    (await request(a.url).get(`/api/stations/${stationId}/followers`).set(owner.auth).expect(200))
      .body as FollowerCounts;
  const guestEmail = `guest-${randomBytes(3).toString('hex')}@example.com`;

  it('a signed-in listener follows and unfollows; the owner sees how many, nobody sees who', async () => {
    await request(a.url).post('/api/stations/follow').send({ stationId }).expect(401);
    const followed = await request(b.url)
      .post('/api/stations/follow')
      .set(fan.auth)
      .send({ stationId })
      .expect(200);
    expect(followed.body as FollowState).toEqual({
      stationId,
      following: true,
      settings: { email: true, push: true, onLive: true, beforeShow: false, atShowStart: false },
    });
    // Twice is still one follow.
    await request(a.url).post('/api/stations/follow').set(fan.auth).send({ stationId }).expect(200);
    expect(await counts()).toMatchObject({ followers: 1, email: 1, pending: 0 });
    // The count is the owner's; there is no list.
    await request(a.url).get(`/api/stations/${stationId}/followers`).set(fan.auth).expect(403);
    const pub = await request(a.url).get(`/api/stations/${stationId}`).expect(200);
    expect(JSON.stringify(pub.body)).not.toContain(fan.username);

    await request(a.url).delete(`/api/stations/follow/${stationId}`).set(fan.auth).expect(204);
    expect((await counts()).followers).toBe(0);
    await request(a.url).post('/api/stations/follow').set(fan.auth).send({ stationId }).expect(200);
    expect((await counts()).followers).toBe(1);
  });

  it('refuses bad input with a clear answer', async () => {
    const bad = await request(a.url)
      .post('/api/stations/follow')
      .set(fan.auth)
      .send({ stationId: 'nope' })
      .expect(400);
    expect(bad.body.message).toContain('This is not a valid station id.');
    await request(a.url)
      .post('/api/stations/follow')
      .set(fan.auth)
      .send({ stationId: '00000000-0000-4000-8000-000000000000' })
      .expect(404);
    await request(a.url)
      .post('/api/stations/follow/settings')
      .set(fan.auth)
      .send({ stationId, email: 'yes' })
      .expect(400);
    await request(a.url)
      .post('/api/stations/follow/email')
      .send({ stationId, email: 'not an address' })
      .expect(400);
    const page = await request(a.url).get('/api/follow/unsubscribe?token=forged.token').expect(400);
    expect(page.text).toContain('This link is not valid');
  });

  it('a guest follows by e-mail once they confirm (double opt-in)', async () => {
    const asked = await request(a.url)
      .post('/api/stations/follow/email')
      .send({ stationId, email: guestEmail.toUpperCase() })
      .expect(202);
    expect(asked.body).toEqual({ status: 'confirmation-sent' });
    await waitUntil(() => sink.to(guestEmail).length === 1, 15_000, 'the confirmation mail');
    const mail = sink.to(guestEmail)[0]!;
    expect(mail.subject).toBe('Confirm: follow Night Owl Radio');
    // Not a follower until confirmed.
    expect(await counts()).toMatchObject({ followers: 1, pending: 1 });
    // Asking again soon sends no second mail (nobody's mailbox is flooded through us).
    await request(b.url)
      .post('/api/stations/follow/email')
      .send({ stationId, email: guestEmail })
      .expect(202);

    const link = linkAfter(mail.text, /Confirm by opening/);
    const page = await request(a.url).get(link.slice(a.config.publicUrl.length)).expect(200);
    expect(page.text).toContain('Follow Night Owl Radio?');
    expect(page.text).toContain('<button type="submit">Confirm</button>');
    // The GET alone (a link scanner) confirms nothing.
    expect((await counts()).pending).toBe(1);
    const done = await request(a.url).post(link.slice(a.config.publicUrl.length)).expect(200);
    expect(done.text).toContain('You now follow Night Owl Radio');
    expect(await counts()).toMatchObject({ followers: 2, pending: 0 });
    expect(sink.to(guestEmail)).toHaveLength(1);
  });

  it('each follower gets exactly one mail per go-live across two nodes, with one-click unsubscribe headers', async () => {
    await live(a);
    // Another node deciding the same go-live at the same time makes no second notice.
    await b.app.get(FollowNotifier).wentLive(stationId);
    await waitUntil(
      () =>
        sink.to(fan.email, /is live now/).length === 1 &&
        sink.to(guestEmail, /is live now/).length === 1,
      20_000,
      'the go-live mails',
    );
    const mail = sink.to(fan.email, /is live now/)[0]!;
    expect(mail.subject).toBe('Night Owl Radio is live now');
    expect(mail.text).toContain(`\n${stationUrl}\n`);
    const unsubscribe = unsubscribeOf(mail);
    expect(unsubscribe).toMatch(
      new RegExp(`^${a.config.publicUrl}/api/follow/unsubscribe\\?token=`),
    );
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(linkAfter(mail.text, /To stop these mails/)).toBe(unsubscribe);

    // Live, off, live again within 10 minutes: a flap, told once.
    await offline(b);
    await live(b);
    await holdsFor(
      () =>
        sink.to(fan.email, /is live now/).length === 1 &&
        sink.to(guestEmail, /is live now/).length === 1,
      4000,
      'one mail per follower for a flapping station',
    );
    await offline(a);
  });

  it('one-click unsubscribe works without signing in, and no more mail comes', async () => {
    const mail = sink.to(guestEmail, /is live now/)[0]!;
    const url = unsubscribeOf(mail);
    // What a mail client sends (RFC 8058): a POST with no cookie, no Origin.
    const res = await request(a.url)
      .post(url.slice(url.indexOf('/api/')))
      .type('form')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
    expect(res.text).toContain('Unsubscribed');
    // Again is fine too.
    await request(a.url)
      .post(url.slice(url.indexOf('/api/')))
      .expect(200);

    const fanMail = sink.to(fan.email, /is live now/)[0]!;
    const fanUrl = unsubscribeOf(fanMail);
    await request(b.url)
      .post(fanUrl.slice(fanUrl.indexOf('/api/')))
      .expect(200);
    // The account keeps its follow, with e-mail off.
    const state = await request(a.url)
      .get(`/api/stations/follow/${stationId}`)
      .set(fan.auth)
      .expect(200);
    expect(state.body).toMatchObject({ following: true, settings: { email: false } });
    expect(await counts()).toMatchObject({ followers: 1, email: 0 });

    await forgetFlaps();
    const before = sink.mails.length;
    await live(a);
    await holdsFor(() => sink.mails.length === before, 3000, 'no mail after unsubscribing');
    await offline(a);
  });

  it('a hard bounce turns mail off for that address', async () => {
    const bouncer = await signUp(a.url, `bounce${Date.now().toString(36)}`);
    await request(a.url)
      .post('/api/stations/follow')
      .set(bouncer.auth)
      .send({ stationId })
      .expect(200);
    await forgetFlaps();
    await live(b);
    await waitUntil(
      async () =>
        (
          (await request(a.url).get(`/api/stations/follow/${stationId}`).set(bouncer.auth))
            .body as FollowState
        ).settings.email === false,
      20_000,
      'e-mail off after the bounce',
    );
    expect(sink.rejected).toContain(bouncer.email.toLowerCase());
    await offline(b);
  });

  it('reminds followers who asked, 30 minutes before a show and when it starts', async () => {
    await request(a.url)
      .post('/api/stations/follow/settings')
      .set(fan.auth)
      .send({ stationId, email: true, onLive: false, beforeShow: true, atShowStart: true })
      .expect(200);
    const soon = new Date(Date.now() + 30 * 60_000 + 4000).toISOString();
    await request(a.url)
      .post('/api/stations/shows')
      .set(owner.auth)
      .send({
        stationId,
        title: 'Owl Hour',
        startsAt: soon,
        durationMinutes: 30,
        timeZone: 'Europe/Paris',
      })
      .expect(201);
    const now = new Date(Date.now() + 6 * 60_000 + 4000).toISOString();
    await request(a.url)
      .post('/api/stations/shows')
      .set(owner.auth)
      .send({ stationId, title: 'Early Bird', startsAt: now, durationMinutes: 20, timeZone: 'UTC' })
      .expect(201);
    await request(a.url)
      .post('/api/stations/shows')
      .set(owner.auth)
      .send({
        stationId,
        title: 'Quick Start',
        startsAt: new Date(Date.now() + 4000).toISOString(),
        durationMinutes: 5,
        timeZone: 'UTC',
      })
      .expect(201);
    await waitUntil(
      () => sink.to(fan.email, /"Quick Start" on Night Owl Radio is starting/).length === 1,
      30_000,
      'the at-start reminder',
    );
    await waitUntil(() => hooks.some((h) => h.type === 'show.starting'), 20_000, 'show.starting');
    expect(hooks.filter((h) => h.type === 'show.starting')).toHaveLength(1);
    expect(hooks.find((h) => h.type === 'show.starting')!.data.show).toMatchObject({
      title: 'Quick Start',
    });
    await waitUntil(
      () => sink.to(fan.email, /"Owl Hour" on Night Owl Radio starts in 30 minutes/).length === 1,
      30_000,
      'the 30-minute reminder',
    );
    // Both nodes tick; one reminder.
    await holdsFor(
      () => sink.to(fan.email, /Owl Hour/).length === 1,
      6000,
      'one reminder across nodes',
    );
    // "Early Bird" starts in 6 minutes: its 30-minute moment has passed, no late reminder.
    expect(sink.to(fan.email, /Early Bird/)).toHaveLength(0);
  }, 60_000);

  it('webhooks: station.followed carries the count only; show.scheduled and show.starting', async () => {
    const byTitle = (x: unknown, y: unknown) =>
      String((x as { title: string }).title).localeCompare((y as { title: string }).title);
    await waitUntil(
      () => hooks.some((h) => h.type === 'station.followed'),
      20_000,
      'station.followed',
    );
    for (const h of hooks.filter((h) => h.type === 'station.followed')) {
      expect(Object.keys(h.data).sort()).toEqual(['followers', 'station']);
      expect(JSON.stringify(h)).not.toContain(fan.username);
      expect(JSON.stringify(h)).not.toContain(guestEmail);
    }
    // One show.scheduled per show the owner scheduled above; deliveries arrive in any order.
    const scheduled = () => hooks.filter((h) => h.type === 'show.scheduled');
    await waitUntil(() => scheduled().length >= 3, 20_000, 'show.scheduled for the three shows');
    expect(
      scheduled()
        .map((h) => h.data.show)
        .sort(byTitle),
    ).toEqual([
      expect.objectContaining({ title: 'Early Bird', stationId }),
      expect.objectContaining({ title: 'Owl Hour', stationId }),
      expect.objectContaining({ title: 'Quick Start', stationId }),
    ]);
  });

  it('a follow flood is refused with 429', async () => {
    let status = 0;
    for (let i = 0; i < FOLLOW_LIMIT + 2 && status !== 429; i++) {
      status = (await request(a.url).post('/api/stations/follow').set(fan.auth).send({ stationId }))
        .status;
    }
    expect(status).toBe(429);
    // Counted across nodes.
    const res = await request(b.url)
      .post('/api/stations/follow')
      .set(fan.auth)
      .send({ stationId })
      .expect(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body.message).toMatch(/^Too many follow requests/);
  });
});
