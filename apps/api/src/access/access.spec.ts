import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Invite,
  Station,
  StationAccess,
} from '@radiobroadcaster/contracts';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { connectSocket, emitAck } from '../../testing/sockets.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { recordingAccess } from '../recordings/recording-access.js';
import { AccessService } from './access.service.js';
import { waitUntil } from '../../../../test/support/wait.js';

type Json = Record<string, unknown>;

/**
 * Private and unlisted stations through the API (PostgreSQL): the owner's invites, password and
 * listener list; who the join admits; what strangers see on every public GET and socket event.
 */
describe('private stations: access API, admission and leaks', () => {
  let t: TestApp;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let priv: Station;
  let unlisted: Station;
  const secrets: string[] = [];
  const sockets: Socket[] = [];

  const call = async (
    method: string,
    path: string,
    body?: unknown,
    auth: Record<string, string> = owner.auth,
  ): Promise<{ status: number; body: Json & Json[] }> => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json & Json[] };
  };

  beforeAll(async () => {
    t = await startTestApp();
    [owner, member, stranger] = [await signUp(t.url), await signUp(t.url), await signUp(t.url)];
    const create = async (name: string) =>
      ((await call('POST', '/api/stations', { name })).body as unknown as CreateStationResponse)
        .station;
    priv = await create('Choir Practice');
    unlisted = await create('Band Rehearsal');
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t.close();
  });

  it('sets visibility with POST /api/stations/update and validates it', async () => {
    expect(
      (await call('POST', '/api/stations/update', { stationId: priv.id, visibility: 'secret' }))
        .status,
    ).toBe(400);
    expect(
      (
        await call(
          'POST',
          '/api/stations/update',
          { stationId: priv.id, visibility: 'private' },
          stranger.auth,
        )
      ).status,
    ).toBe(403);
    for (const [s, visibility] of [
      [priv, 'private'],
      [unlisted, 'unlisted'],
    ] as const) {
      const res = await call('POST', '/api/stations/update', { stationId: s.id, visibility });
      expect(res.status).toBe(200);
      // the spec's public fields, unchanged in shape
      expect(res.body).toMatchObject({ id: s.id, name: s.name, status: 'offline', viewerCount: 0 });
    }
    const access = (await call('GET', `/api/stations/${priv.id}/access`))
      .body as unknown as StationAccess;
    expect(access).toMatchObject({ visibility: 'private', hasPassword: false, listeners: [] });
    expect(
      (await call('GET', `/api/stations/${priv.id}/access`, undefined, stranger.auth)).status,
    ).toBe(403);
  });

  it('keeps unlisted and private stations out of discover, profiles and the sitemap, with noindex; readable by id', async () => {
    const ids = (list: unknown) => (list as { stations: Station[] }).stations.map((s) => s.id);
    expect(ids((await call('GET', '/api/stations/discover', undefined, {})).body)).not.toEqual(
      expect.arrayContaining([priv.id]),
    );
    expect(ids((await call('GET', '/api/stations/discover', undefined, {})).body)).not.toContain(
      unlisted.id,
    );
    const profile = ids(
      (await call('GET', `/api/users/${owner.username}/stations`, undefined, {})).body,
    );
    expect(profile).not.toContain(priv.id);
    expect(profile).not.toContain(unlisted.id);
    // the owner's own list (the studio) has them all
    const own = ids((await call('GET', `/api/users/${owner.username}/stations`)).body);
    expect(own).toEqual(expect.arrayContaining([priv.id, unlisted.id]));
    const sitemap = await (await fetch(`${t.url}/sitemap.xml`)).text();
    expect(sitemap).not.toContain(priv.slug);
    expect(sitemap).not.toContain(unlisted.slug);
    for (const path of [
      `/${owner.username}/${unlisted.slug}`,
      `/${owner.username}/${priv.slug}`,
      `/station/${priv.id}`,
      `/embed/${owner.username}/${priv.slug}`,
    ]) {
      const page = await fetch(`${t.url}${path}`);
      expect([path, page.status, page.headers.get('x-robots-tag')]).toEqual([path, 200, 'noindex']);
      const html = await page.text();
      expect(html).toContain('<meta name="robots" content="noindex" />');
      // title and social tags stay
      expect(html).toMatch(/<title>(Choir Practice|Band Rehearsal)/);
    }
    // station fields stay readable for everyone
    expect((await call('GET', `/api/stations/${priv.id}`, undefined, {})).body).toMatchObject({
      name: 'Choir Practice',
      broadcaster: { username: owner.username },
    });
  });

  it('creates, lists and revokes invite links; only the owner may', async () => {
    const made = await call('POST', '/api/stations/invites', {
      stationId: priv.id,
      label: 'members',
      maxUses: 3,
    });
    expect(made.status).toBe(201);
    const invite = made.body as unknown as Invite;
    secrets.push(invite.token, invite.id);
    expect(invite).toMatchObject({ label: 'members', maxUses: 3, uses: 0, revokedAt: null });
    expect(invite.url).toBe(
      `${t.url}/${owner.username}/${priv.slug}?invite=${encodeURIComponent(invite.token)}`,
    );
    expect(
      (
        await call('POST', '/api/stations/invites', {
          stationId: priv.id,
          expiresAt: '2001-01-01T00:00:00Z',
        })
      ).status,
    ).toBe(400);
    expect(
      (await call('POST', '/api/stations/invites', { stationId: priv.id }, stranger.auth)).status,
    ).toBe(403);
    const list = await call('GET', `/api/stations/${priv.id}/invites`);
    expect(list.status).toBe(200);
    expect(list.body.map((i) => i.id)).toEqual([invite.id]);
    expect(
      (await call('GET', `/api/stations/${priv.id}/invites`, undefined, stranger.auth)).status,
    ).toBe(403);

    // admitted (the station is off air: the join then says so, not "private")
    const join = (body: Json, auth: Record<string, string> = {}) =>
      call('POST', '/api/joinStationAsReceiver', { stationId: priv.id, ...body }, auth);
    expect((await join({ invite: invite.token })).body.error).toBe('STATION_NOT_ACTIVE');
    expect((await join({})).body).toEqual({
      error: 'PRIVATE_STATION',
      message: 'This is a private station: it needs an invite link or its password',
    });
    expect(
      (await call('DELETE', `/api/stations/invites/${invite.id}`, undefined, stranger.auth)).status,
    ).toBe(403);
    expect((await call('DELETE', `/api/stations/invites/${invite.id}`)).status).toBe(204);
    expect(await join({ invite: invite.token })).toEqual({
      status: 403,
      body: {
        error: 'INVITE_INVALID',
        message: 'This invite link was revoked by the station owner',
      },
    });
    // revoke all
    const more = [
      (await call('POST', '/api/stations/invites', { stationId: priv.id }))
        .body as unknown as Invite,
      (await call('POST', '/api/stations/invites', { stationId: priv.id }))
        .body as unknown as Invite,
    ];
    secrets.push(...more.map((i) => i.token));
    expect(
      (await call('POST', '/api/stations/invites/revoke-all', { stationId: priv.id })).body,
    ).toEqual({
      revoked: 2,
    });
    for (const i of more)
      expect((await join({ invite: i.token })).body.error).toBe('INVITE_INVALID');
  });

  it('admits with the password (never stored in clear) and the listener list (mailed)', async () => {
    expect(
      (await call('POST', '/api/stations/password', { stationId: priv.id, password: 'hallelujah' }))
        .body,
    ).toEqual({
      hasPassword: true,
    });
    const db = t.app.get(DataSource);
    const [row] = (await db.query(
      `SELECT password_hash FROM station_access WHERE station_id = $1`,
      [priv.id],
    )) as { password_hash: string }[];
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    expect(row!.password_hash).not.toContain('hallelujah');
    const join = (body: Json, auth: Record<string, string> = {}) =>
      call('POST', '/api/joinStationAsReceiver', { stationId: priv.id, ...body }, auth);
    expect((await join({ password: 'nope' })).body.error).toBe('WRONG_STATION_PASSWORD');
    expect((await join({ password: 'hallelujah' })).body.error).toBe('STATION_NOT_ACTIVE');

    const added = await call('POST', '/api/stations/listeners', {
      stationId: priv.id,
      email: member.email.toUpperCase(),
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ email: member.email });
    secrets.push(member.email);
    const mailDir = joinPath(t.config.dataDir, 'mail');
    const invited = () =>
      (existsSync(mailDir) ? readdirSync(mailDir) : [])
        .map((f) => readFileSync(joinPath(mailDir, f), 'utf8'))
        .find((m) => m.includes(`To: ${member.email}`) && m.includes('invited'));
    await waitUntil(async () => invited() !== undefined, 10_000, 'the invite mail');
    const mail = invited()!;
    expect(mail).toContain("You're invited to listen to Choir Practice");
    expect(mail).toContain(`${t.url}/${owner.username}/${priv.slug}`);
    expect((await join({}, member.auth)).body.error).toBe('STATION_NOT_ACTIVE');
    expect((await join({}, stranger.auth)).body.error).toBe('PRIVATE_STATION');
    expect((await join({}, owner.auth)).body.error).toBe('STATION_NOT_ACTIVE');

    const access = (await call('GET', `/api/stations/${priv.id}/access`))
      .body as unknown as StationAccess;
    expect(access.hasPassword).toBe(true);
    expect(access.listeners.map((l) => l.email)).toEqual([member.email]);
    expect(access.admissions.map((a) => a.via)).toEqual(
      expect.arrayContaining(['invite', 'password', 'account']),
    );
    expect(
      (await call('DELETE', `/api/stations/listeners/${access.listeners[0]!.id}`)).status,
    ).toBe(204);
    expect((await join({}, member.auth)).body.error).toBe('PRIVATE_STATION');
  });

  it('a recording follows its station: private ones reach only the owner and admitted listeners', () => {
    const stranger = { owner: false, admitted: false };
    const admitted = { owner: false, admitted: true };
    const ready = (visibility: 'public' | 'unlisted' | 'private' | null) => ({
      visibility,
      status: 'ready',
    });
    expect(recordingAccess(ready(null), { visibility: 'private' }, stranger)).toEqual({
      playable: false,
      listed: false,
    });
    expect(recordingAccess(ready(null), { visibility: 'private' }, admitted)).toEqual({
      playable: true,
      listed: true,
    });
    expect(recordingAccess(ready(null), { visibility: 'unlisted' }, stranger)).toEqual({
      playable: true,
      listed: false,
    });
    expect(recordingAccess(ready(null), { visibility: 'public' }, stranger)).toEqual({
      playable: true,
      listed: true,
    });
    expect(recordingAccess(ready('private'), { visibility: 'public' }, stranger).playable).toBe(
      false,
    );
    expect(
      recordingAccess(
        { visibility: 'public', status: 'recording' },
        { visibility: 'public' },
        stranger,
      ).playable,
    ).toBe(false);
    expect(
      recordingAccess(ready('private'), { visibility: 'private' }, { owner: true, admitted: false })
        .playable,
    ).toBe(true);
  });

  it("a stranger's socket can't join a private station's room; a grant holder can", async () => {
    const s = await connectSocket(t.url, sockets);
    const join = (body: unknown) => emitAck<Json>(s, 'station:join', body);
    for (const body of [priv.id, { stationId: priv.id }, { stationId: priv.id, grant: 'x.y' }])
      expect(await join(body)).toMatchObject({ ok: false, error: 'PRIVATE_STATION' });
    expect(await join(unlisted.id)).toMatchObject({ ok: true });
    // a grant from an invite
    const invite = (await call('POST', '/api/stations/invites', { stationId: priv.id }))
      .body as unknown as Invite;
    secrets.push(invite.token);
    const access = t.app.get(AccessService);
    const stationEntity = await (await import('../stations/stations.service.js')).StationsService;
    const station = await t.app.get(stationEntity).entity(priv.id);
    const admitted = (await access.admit(station, { invite: invite.token }, null))!;
    const grant = access.issueGrant(station, admitted, null, t.url);
    secrets.push(grant.token);
    expect(await join({ stationId: priv.id, grant: grant.token })).toMatchObject({ ok: true });
    // revoked: out of the room, told so
    const told = new Promise<Json>((ok) => s.once('station:access', ok));
    expect((await call('DELETE', `/api/stations/invites/${invite.id}`)).status).toBe(204);
    expect(await told).toEqual({ id: priv.id, visibility: 'private', endsInSeconds: 0 });
    expect(await join({ stationId: priv.id, grant: grant.token })).toMatchObject({
      ok: false,
      error: 'PRIVATE_STATION',
    });
    // the other socket events a stranger can send
    expect(
      await (s.timeout(10_000).emitWithAck('station:leave', priv.id) as Promise<Json>),
    ).toEqual({ ok: true });
  });

  it("keeps a private station's schedule and calendar to its owner and admitted listeners", async () => {
    for (const path of [
      `/api/stations/${priv.id}/shows`,
      `/${owner.username}/${priv.slug}/schedule.ics`,
    ]) {
      for (const auth of [{}, stranger.auth]) {
        const res = await fetch(`${t.url}${path}`, { headers: auth });
        expect([path, res.status]).toEqual([path, 403]);
        expect(((await res.json()) as Json).error).toBe('PRIVATE_STATION');
      }
      expect((await fetch(`${t.url}${path}`, { headers: owner.auth })).status).toBe(200);
    }
    // a listener with a grant
    const invite = (await call('POST', '/api/stations/invites', { stationId: priv.id }))
      .body as unknown as Invite;
    const { StationsService } = await import('../stations/stations.service.js');
    const station = await t.app.get(StationsService).entity(priv.id);
    const access = t.app.get(AccessService);
    const grant = access.issueGrant(
      station,
      (await access.admit(station, { invite: invite.token }, null))!,
      null,
      t.url,
    );
    secrets.push(invite.token, grant.token);
    expect(
      (await fetch(`${t.url}/api/stations/${priv.id}/shows?grant=${grant.token}`)).status,
    ).toBe(200);
    expect(
      (await fetch(`${t.url}/${owner.username}/${priv.slug}/schedule.ics?grant=${grant.token}`))
        .status,
    ).toBe(200);
    // unlisted: anyone with the link
    expect((await fetch(`${t.url}/api/stations/${unlisted.id}/shows`)).status).toBe(200);
  });

  it('leaks nothing about a private station through any public GET', async () => {
    const doc = (await (await fetch(`${t.url}/api/docs-json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const gets = Object.entries(doc.paths)
      .filter(([, ops]) => 'get' in ops)
      .map(([p]) => p);
    expect(gets.length).toBeGreaterThan(10);
    const fill = (p: string) =>
      p
        .replace(/\{(id|stationId)\}/g, priv.id)
        .replace(/\{username\}/g, owner.username)
        .replace(/\{slug\}|\{stationSlug\}/g, priv.slug)
        .replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    const pages = [
      `/${owner.username}/${priv.slug}`,
      `/station/${priv.id}`,
      `/embed/${owner.username}/${priv.slug}`,
      `/${owner.username}`,
      '/sitemap.xml',
      '/feed.xml',
      `/listen/${owner.username}/${priv.slug}.m3u`,
      `/listen/${owner.username}/${priv.slug}.pls`,
    ];
    const leaks: string[] = [];
    for (const path of [...gets.map(fill), ...pages]) {
      for (const auth of [{}, stranger.auth]) {
        const res = await fetch(`${t.url}${path}`, { headers: auth });
        const text = await res.text();
        for (const secret of [...secrets, '?t=', 'station_invites', 'hallelujah'])
          if (text.includes(secret))
            leaks.push(`${path} (${res.status}) shows ${secret.slice(0, 12)}…`);
        if (/\/listen\/[^"\s]+\.(ogg|mp3)/.test(text) && path.startsWith('/listen/'))
          leaks.push(`${path} lists a stream`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it("a deleted account's e-mail leaves the listener lists and the admission log it was on", async () => {
    const leaving = await signUp(t.url);
    const other = await signUp(t.url);
    const station = (
      (await call('POST', '/api/stations', { name: 'Leaving Choir' })).body as unknown as {
        station: Station;
      }
    ).station;
    await call('POST', '/api/stations/update', { stationId: station.id, visibility: 'private' });
    for (const u of [leaving, other])
      expect(
        (await call('POST', '/api/stations/listeners', { stationId: station.id, email: u.email }))
          .status,
      ).toBe(201);
    await call('POST', '/api/stations/invites', { stationId: station.id, label: 'members' });
    // let in by the list (the station is off air, so the join says so after admitting)
    expect(
      (await call('POST', '/api/joinStationAsReceiver', { stationId: station.id }, leaving.auth))
        .body.error,
    ).toBe('STATION_NOT_ACTIVE');
    const overview = async () =>
      (await call('GET', `/api/stations/${station.id}/access`)).body as unknown as StationAccess;
    expect((await overview()).listeners.map((l) => l.email).sort()).toEqual(
      [leaving.email, other.email].sort(),
    );
    expect((await overview()).admissions.map((a) => a.label)).toContain(leaving.email);

    const gone = await call(
      'POST',
      '/api/auth/delete-user',
      { password: leaving.password },
      leaving.auth,
    );
    expect(gone.status).toBe(200);
    const after = await overview();
    expect(after.listeners.map((l) => l.email)).toEqual([other.email]);
    expect(after.admissions.map((a) => a.via)).toContain('account');
    const invites = (await call('GET', `/api/stations/${station.id}/invites`)).body;
    expect(JSON.stringify([after, invites])).not.toContain(leaving.email);
  });
});
