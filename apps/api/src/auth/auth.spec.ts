import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { AuthMailer } from './auth.mailer.js';
import {
  newUserBody,
  sessionCookie,
  signInSession,
  signUpSession,
  type Session,
} from '../../testing/auth-helpers.js';

const EVIL = 'https://evil.example';

describe('/api/auth (PostgreSQL)', () => {
  let t: TestApp;
  let db: DataSource;
  let origin: string;
  let mails: jest.Spied<AuthMailer['sendVerification']>;

  beforeAll(async () => {
    // The rate limits have their own suites; here they must not get in the way.
    t = await startTestApp({
      env: { RATE_LIMIT_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SIGN_UP_PER_IP: '0' },
    });
    db = t.app.get(DataSource);
    origin = new URL(t.config.publicUrl).origin;
    mails = jest.spyOn(t.app.get(AuthMailer), 'sendVerification');
  }, 90_000); // starting the app on a busy machine
  afterAll(async () => {
    mails.mockRestore();
    await t.close();
  });

  /** A mutation as the browser sends it: the cookie plus our own Origin. */
  const asBrowser = (path: string, s: Session) =>
    request(t.url).post(path).set('Cookie', s.cookie).set('Origin', origin);
  const asApp = (path: string, s: Session) =>
    request(t.url).post(path).set('Authorization', `Bearer ${s.token}`);

  /** Checks a session is refused on its next request, by cookie and by bearer. */
  async function expectRevoked(s: Session): Promise<void> {
    const viaBearer = await asApp('/api/auth/update-user', s).send({ name: 'x' }).expect(401);
    expect(viaBearer.body).toEqual({ error: 'Unauthorized', message: 'Authentication required' });
    await asBrowser('/api/auth/update-user', s).send({ name: 'x' }).expect(401);
    const get = await request(t.url)
      .get('/api/auth/get-session')
      .set('Authorization', `Bearer ${s.token}`)
      .expect(200);
    expect(get.body).toBeNull();
    const getCookie = await request(t.url)
      .get('/api/auth/get-session')
      .set('Cookie', s.cookie)
      .expect(200);
    expect(getCookie.body).toBeNull();
  }

  describe('POST sign-up/email', () => {
    it('creates the user, answers SignInResponse and sets an httpOnly SameSite=Lax session cookie', async () => {
      const body = newUserBody();
      const res = await request(t.url).post('/api/auth/sign-up/email').send(body).expect(200);
      expect(res.body).toEqual({
        redirect: false,
        token: expect.any(String),
        user: {
          id: expect.any(String),
          email: body.email.toLowerCase(),
          emailVerified: false,
          name: body.name,
          username: body.username,
          image: null,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('rb_session='),
      )!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/); // http:// public URL in tests
      expect(sessionCookie(res)).toBe(`rb_session=${res.body.token}`);
      const [row] = await db.query(`SELECT password_hash FROM users WHERE id = $1`, [
        res.body.user.id,
      ]);
      // At the configured cost (password.spec checks the production default).
      const { N, r, p } = t.config.passwordScrypt;
      expect(row.password_hash).toMatch(
        new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[\\w-]{22}\\$[\\w-]{86}$`),
      );
    });

    it('answers 409 Conflict when the email or the username is taken', async () => {
      const a = await signUpSession(t.url);
      const sameEmail = await request(t.url)
        .post('/api/auth/sign-up/email')
        .send({ ...newUserBody(), email: a.body.email.toUpperCase() })
        .expect(409);
      expect(sameEmail.body).toEqual({
        error: 'Conflict',
        message: expect.stringMatching(/email/),
      });
      const sameName = await request(t.url)
        .post('/api/auth/sign-up/email')
        .send({ ...newUserBody(), username: a.body.username.toUpperCase() })
        .expect(409);
      expect(sameName.body).toEqual({
        error: 'Conflict',
        message: expect.stringMatching(/username/),
      });
    });

    it.each(['api', 'favicon.ico', 'logo.png', 'static', 'Assets'])(
      'refuses the reserved username %s with 400',
      async (username) => {
        const res = await request(t.url)
          .post('/api/auth/sign-up/email')
          .send({ ...newUserBody(), username })
          .expect(400);
        expect(res.body.error).toBe('ValidationError');
        expect(res.body.fields.map((f: { path: string }) => f.path)).toContain('username');
        const rows = await db.query(`SELECT 1 FROM users WHERE username = $1`, [
          username.toLowerCase(),
        ]);
        expect(rows).toHaveLength(0);
      },
    );

    it('answers 400 naming missing, invalid and unknown fields', async () => {
      const res = await request(t.url)
        .post('/api/auth/sign-up/email')
        .send({ email: 'not-an-email', password: 'short', isAdmin: true })
        .expect(400);
      const paths = res.body.fields.map((f: { path: string }) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining(['email', 'password', 'name', 'username', 'isAdmin']),
      );
    });

    it('mails a verification link whose token is stored only as its SHA-256', async () => {
      mails.mockClear();
      const s = await signUpSession(t.url);
      expect(mails).toHaveBeenCalledTimes(1);
      const [to, link] = mails.mock.calls[0]!;
      expect(to).toBe(s.body.email.toLowerCase());
      const url = new URL(link);
      expect(`${url.origin}${url.pathname}`).toBe(`${t.config.publicUrl}/verify-email`);
      const token = url.searchParams.get('token')!;
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      const rows = await db.query(
        `SELECT token_hash, expires_at FROM email_verification_tokens WHERE user_id = $1`,
        [s.userId],
      );
      expect(rows).toEqual([
        {
          token_hash: createHash('sha256').update(token).digest('hex'),
          expires_at: expect.any(Date),
        },
      ]);
      const ttl = (rows[0].expires_at as Date).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(23.9 * 3_600_000);
      expect(ttl).toBeLessThanOrEqual(24 * 3_600_000);
    });
  });

  describe('POST sign-in/email', () => {
    it('signs in with the right password: SignInResponse and a new session cookie', async () => {
      const a = await signUpSession(t.url);
      const res = await request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: a.body.email.toUpperCase(), password: a.body.password })
        .expect(200);
      expect(res.body).toMatchObject({
        redirect: false,
        token: expect.any(String),
        user: { id: a.userId },
      });
      expect(res.body.token).not.toBe(a.token);
      const s = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', sessionCookie(res))
        .expect(200);
      expect(s.body.user.id).toBe(a.userId);
    });

    it('answers the same 401 for a wrong password and an unknown email', async () => {
      const a = await signUpSession(t.url);
      const wrong = await request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: a.body.email, password: 'wrong password' })
        .expect(401);
      const unknown = await request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: 'nobody@example.com', password: a.body.password })
        .expect(401);
      expect(wrong.body).toEqual({ error: 'Unauthorized', message: 'Invalid email or password' });
      expect(unknown.body).toEqual(wrong.body);
      expect(wrong.headers['set-cookie']).toBeUndefined();
    });

    it('answers 400 naming invalid and unknown fields', async () => {
      const res = await request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: 'x', extra: 1 })
        .expect(400);
      const paths = res.body.fields.map((f: { path: string }) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['email', 'password', 'extra']));
    });
  });

  describe('GET get-session', () => {
    it('returns the session and user by cookie and by bearer token', async () => {
      const a = await signUpSession(t.url);
      const byCookie = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', a.cookie)
        .expect(200);
      expect(byCookie.body).toEqual({
        session: {
          id: expect.any(String),
          userId: a.userId,
          expiresAt: expect.any(String),
          createdAt: expect.any(String),
          ipAddress: expect.any(String),
          userAgent: null,
        },
        user: expect.objectContaining({ id: a.userId, username: a.body.username }),
      });
      const ttl = Date.parse(byCookie.body.session.expiresAt) - Date.now();
      expect(Math.abs(ttl - t.config.sessionTtlMs)).toBeLessThan(60_000);
      const byBearer = await request(t.url)
        .get('/api/auth/get-session')
        .set('Authorization', `Bearer ${a.token}`)
        .expect(200);
      expect(byBearer.body).toEqual(byCookie.body);
    });

    it('returns JSON null when signed out or the token is not ours', async () => {
      const none = await request(t.url).get('/api/auth/get-session').expect(200);
      expect(none.headers['content-type']).toMatch(/application\/json/);
      expect(none.text).toBe('null');
      const a = await signUpSession(t.url);
      const [h, p] = a.token.split('.');
      const forged = `${h}.${p}.AAAA${a.token.split('.')[2]!.slice(4)}`;
      const bad = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', `rb_session=${forged}`)
        .expect(200);
      expect(bad.body).toBeNull();
      expect((bad.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^rb_session=;/);
      const garbage = await request(t.url)
        .get('/api/auth/get-session')
        .set('Authorization', 'Bearer nonsense')
        .expect(200);
      expect(garbage.body).toBeNull();
    });

    it('refuses a session whose row has expired even though its JWT has not', async () => {
      const a = await signUpSession(t.url);
      await db.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [a.userId],
      );
      await expectRevoked(a);
    });
  });

  describe('POST sign-out', () => {
    it('deletes the session and clears the cookie; the session is refused on its next request', async () => {
      const a = await signUpSession(t.url);
      const res = await asBrowser('/api/auth/sign-out', a).expect(200);
      expect(res.body).toEqual({ success: true });
      expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(
        /^rb_session=;.*Expires=Thu, 01 Jan 1970/,
      );
      expect(await db.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [a.userId])).toHaveLength(
        0,
      );
      await expectRevoked(a);
    });

    it('answers 401 without a session', async () => {
      const res = await request(t.url).post('/api/auth/sign-out').expect(401);
      expect(res.body).toEqual({ error: 'Unauthorized', message: 'Authentication required' });
    });
  });

  describe('POST revoke-sessions / revoke-other-sessions', () => {
    it('revoke-sessions ends every session of the user, this one included', async () => {
      const a = await signUpSession(t.url);
      const b = await signInSession(t.url, a.body.email, a.body.password);
      const other = await signUpSession(t.url);
      const res = await asApp('/api/auth/revoke-sessions', b).expect(200);
      expect(res.body).toEqual({ status: true });
      await expectRevoked(a);
      await expectRevoked(b);
      await request(t.url).get('/api/auth/get-session').set('Cookie', other.cookie).expect(200);
      expect(
        (await request(t.url).get('/api/auth/get-session').set('Cookie', other.cookie)).body.user
          .id,
      ).toBe(other.userId);
    });

    it('revoke-other-sessions ends the other sessions and keeps this one', async () => {
      const a = await signUpSession(t.url);
      const b = await signInSession(t.url, a.body.email, a.body.password);
      const res = await asBrowser('/api/auth/revoke-other-sessions', b).expect(200);
      expect(res.body).toEqual({ status: true });
      await expectRevoked(a);
      const still = await request(t.url)
        .get('/api/auth/get-session')
        .set('Authorization', `Bearer ${b.token}`)
        .expect(200);
      expect(still.body.user.id).toBe(a.userId);
    });

    it('answer 401 without a session', async () => {
      await request(t.url).post('/api/auth/revoke-sessions').expect(401);
      await request(t.url).post('/api/auth/revoke-other-sessions').expect(401);
    });
  });

  describe('POST update-user', () => {
    it('changes name, username and image', async () => {
      const a = await signUpSession(t.url);
      const username = `${a.body.username}x`.slice(0, 32);
      const res = await asBrowser('/api/auth/update-user', a)
        .send({
          name: 'New Name',
          username: username.toUpperCase(),
          image: 'https://cdn.example.com/a.png',
        })
        .expect(200);
      expect(res.body).toEqual({ status: true });
      const s = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', a.cookie)
        .expect(200);
      expect(s.body.user).toMatchObject({
        name: 'New Name',
        username,
        image: 'https://cdn.example.com/a.png',
      });
      await asApp('/api/auth/update-user', a).send({ image: null }).expect(200);
      expect(
        (await request(t.url).get('/api/auth/get-session').set('Cookie', a.cookie)).body.user.image,
      ).toBeNull();
    });

    it('answers 409 when the new username is taken and 400 for reserved ones', async () => {
      const a = await signUpSession(t.url);
      const b = await signUpSession(t.url);
      const clash = await asApp('/api/auth/update-user', a)
        .send({ username: b.body.username })
        .expect(409);
      expect(clash.body.error).toBe('Conflict');
      for (const username of ['api', 'logo.png']) {
        const res = await asApp('/api/auth/update-user', a).send({ username }).expect(400);
        expect(res.body.fields.map((f: { path: string }) => f.path)).toContain('username');
      }
    });

    it('answers 400 for unknown fields (email cannot change here) and for an empty body', async () => {
      const a = await signUpSession(t.url);
      const res = await asApp('/api/auth/update-user', a)
        .send({ email: 'x@example.com' })
        .expect(400);
      expect(res.body.fields.map((f: { path: string }) => f.path)).toContain('email');
      await asApp('/api/auth/update-user', a).send({}).expect(400);
    });

    it('answers 401 without a session', async () => {
      await request(t.url).post('/api/auth/update-user').send({ name: 'x' }).expect(401);
    });
  });

  describe('POST delete-user', () => {
    async function seedOwned(userId: string): Promise<void> {
      await db.query(
        `INSERT INTO stations (broadcaster_id, name, slug) VALUES ($1, 'Mine', 'mine')`,
        [userId],
      );
      await db.query(`INSERT INTO allowed_domains (user_id, domain) VALUES ($1, 'example.com')`, [
        userId,
      ]);
    }
    async function countOwned(userId: string): Promise<Record<string, number>> {
      const [row] = await db.query(
        `SELECT (SELECT count(*) FROM users WHERE id = $1)::int AS users,
                (SELECT count(*) FROM sessions WHERE user_id = $1)::int AS sessions,
                (SELECT count(*) FROM stations WHERE broadcaster_id = $1)::int AS stations,
                (SELECT count(*) FROM allowed_domains WHERE user_id = $1)::int AS domains,
                (SELECT count(*) FROM email_verification_tokens WHERE user_id = $1)::int AS tokens`,
        [userId],
      );
      return row;
    }

    it('deletes the user with their sessions, stations, allowed domains and tokens', async () => {
      const a = await signUpSession(t.url);
      const keep = await signUpSession(t.url);
      await seedOwned(a.userId);
      await seedOwned(keep.userId);
      expect(await countOwned(a.userId)).toEqual({
        users: 1,
        sessions: 1,
        stations: 1,
        domains: 1,
        tokens: 1,
      });
      const res = await asBrowser('/api/auth/delete-user', a)
        .send({ password: a.body.password })
        .expect(200);
      expect(res.body).toEqual({ success: true });
      expect((res.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^rb_session=;/);
      expect(await countOwned(a.userId)).toEqual({
        users: 0,
        sessions: 0,
        stations: 0,
        domains: 0,
        tokens: 0,
      });
      expect(await countOwned(keep.userId)).toEqual({
        users: 1,
        sessions: 1,
        stations: 1,
        domains: 1,
        tokens: 1,
      });
      await expectRevoked(a);
      await request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: a.body.email, password: a.body.password })
        .expect(401);
    });

    it('accepts no password on a fresh session, refuses it on an old one, and refuses a wrong password', async () => {
      const a = await signUpSession(t.url);
      const wrong = await asApp('/api/auth/delete-user', a)
        .send({ password: 'not the password' })
        .expect(400);
      expect(wrong.body.fields.map((f: { path: string }) => f.path)).toEqual(['password']);
      await db.query(
        `UPDATE sessions SET created_at = now() - interval '2 days' WHERE user_id = $1`,
        [a.userId],
      );
      const stale = await asApp('/api/auth/delete-user', a).send({}).expect(403);
      expect(stale.body.error).toBe('Forbidden');
      expect((await countOwned(a.userId)).users).toBe(1);
      const fresh = await signInSession(t.url, a.body.email, a.body.password);
      await asApp('/api/auth/delete-user', fresh).send({}).expect(200);
      expect((await countOwned(a.userId)).users).toBe(0);
    });

    it('answers 400 for unknown fields and 401 without a session', async () => {
      const a = await signUpSession(t.url);
      const res = await asApp('/api/auth/delete-user', a).send({ confirm: true }).expect(400);
      expect(res.body.fields.map((f: { path: string }) => f.path)).toContain('confirm');
      await request(t.url).post('/api/auth/delete-user').send({}).expect(401);
    });
  });

  describe('GET verify-email', () => {
    it('marks the email verified once; the token cannot be reused', async () => {
      mails.mockClear();
      const a = await signUpSession(t.url);
      const link = new URL(mails.mock.calls[0]![1]);
      const api = `/api/auth/verify-email${link.search}`;
      const res = await request(t.url).get(api).expect(200);
      expect(res.body).toEqual({
        status: true,
        kind: 'verify-email',
        email: a.body.email.toLowerCase(),
      });
      const s = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', a.cookie)
        .expect(200);
      expect(s.body.user.emailVerified).toBe(true);
      const again = await request(t.url).get(api).expect(400);
      expect(again.body).toMatchObject({
        error: 'ValidationError',
        message: 'This link is invalid or has expired',
      });
    });

    it('answers 400 for an unknown, expired or missing token', async () => {
      await request(t.url).get('/api/auth/verify-email?token=nope').expect(400);
      const a = await signUpSession(t.url);
      const token = 'expired-token-value';
      await db.query(
        `INSERT INTO email_verification_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() - interval '1 minute')`,
        [a.userId, createHash('sha256').update(token).digest('hex')],
      );
      await request(t.url).get(`/api/auth/verify-email?token=${token}`).expect(400);
      const s = await request(t.url).get('/api/auth/get-session').set('Cookie', a.cookie);
      expect(s.body.user.emailVerified).toBe(false);
      const missing = await request(t.url).get('/api/auth/verify-email').expect(400);
      expect(missing.body.fields.map((f: { path: string }) => f.path)).toContain('token');
    });
  });

  it('documents every auth call in the OpenAPI document under the auth tag', async () => {
    const res = await request(t.url).get('/api/docs-json').expect(200);
    const paths = res.body.paths as Record<string, Record<string, { tags?: string[] }>>;
    for (const [method, path] of [
      ['post', 'sign-up/email'],
      ['post', 'sign-in/email'],
      ['get', 'get-session'],
      ['post', 'sign-out'],
      ['post', 'update-user'],
      ['post', 'delete-user'],
      ['get', 'verify-email'],
      ['post', 'revoke-sessions'],
      ['post', 'revoke-other-sessions'],
    ] as const) {
      expect(paths[`/api/auth/${path}`]?.[method]?.tags).toEqual(['auth']);
    }
  });

  describe('CSRF (Origin check on cookie-authenticated mutations)', () => {
    it('refuses a cross-site POST carrying the cookie, and one with no Origin', async () => {
      const a = await signUpSession(t.url);
      const evil = await request(t.url)
        .post('/api/auth/update-user')
        .set('Cookie', a.cookie)
        .set('Origin', EVIL)
        .send({ name: 'pwned' })
        .expect(403);
      expect(evil.body).toEqual({ error: 'Forbidden', message: 'Cross-site request refused' });
      await request(t.url)
        .post('/api/auth/update-user')
        .set('Cookie', a.cookie)
        .send({ name: 'pwned' })
        .expect(403);
      await request(t.url)
        .post('/api/auth/sign-out')
        .set('Cookie', a.cookie)
        .set('Origin', EVIL)
        .expect(403);
      const s = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', a.cookie)
        .expect(200);
      expect(s.body.user.name).toBe(a.body.name);
    });

    it('guards the mutations of other modules too', async () => {
      const a = await signUpSession(t.url);
      const res = await request(t.url)
        .post('/api/me/allowed-domains')
        .set('Cookie', a.cookie)
        .set('Origin', EVIL)
        .send({ domain: 'example.com' })
        .expect(403);
      expect(res.body.message).toBe('Cross-site request refused');
      await request(t.url)
        .delete('/api/me/allowed-domains/example.com')
        .set('Cookie', a.cookie)
        .set('Origin', EVIL)
        .expect(403);
    });

    it('lets the same POST through with a trusted Origin, and a bearer request without any Origin', async () => {
      const a = await signUpSession(t.url);
      await asBrowser('/api/auth/update-user', a).send({ name: 'From the site' }).expect(200);
      await asApp('/api/auth/update-user', a).send({ name: 'From the app' }).expect(200);
      const s = await request(t.url)
        .get('/api/auth/get-session')
        .set('Cookie', a.cookie)
        .expect(200);
      expect(s.body.user.name).toBe('From the app');
    });

    it('refuses sign-in and sign-up from an untrusted Origin (login CSRF)', async () => {
      const a = await signUpSession(t.url);
      const res = await request(t.url)
        .post('/api/auth/sign-in/email')
        .set('Origin', EVIL)
        .send({ email: a.body.email, password: a.body.password })
        .expect(403);
      expect(res.body).toEqual({ error: 'Forbidden', message: 'Cross-site request refused' });
      await request(t.url)
        .post('/api/auth/sign-up/email')
        .set('Origin', EVIL)
        .send(newUserBody())
        .expect(403);
      await request(t.url)
        .post('/api/auth/sign-in/email')
        .set('Origin', origin)
        .send({ email: a.body.email, password: a.body.password })
        .expect(200);
    });
  });
});

describe('/api/auth behind an https public URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { PUBLIC_URL: 'https://radio.example', TRUSTED_ORIGINS: 'https://studio.example' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('marks the cookie Secure and trusts the public origin and TRUSTED_ORIGINS only', async () => {
    const res = await request(t.url)
      .post('/api/auth/sign-up/email')
      .send(newUserBody())
      .expect(200);
    const raw = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
      c.startsWith('rb_session='),
    )!;
    expect(raw).toMatch(/; Secure/);
    const cookie = sessionCookie(res);
    for (const origin of ['https://radio.example', 'https://studio.example']) {
      await request(t.url)
        .post('/api/auth/update-user')
        .set('Cookie', cookie)
        .set('Origin', origin)
        .send({ name: 'ok' })
        .expect(200);
    }
    for (const origin of ['http://radio.example', 'https://radio.example.evil.example', 'null']) {
      await request(t.url)
        .post('/api/auth/update-user')
        .set('Cookie', cookie)
        .set('Origin', origin)
        .send({ name: 'no' })
        .expect(403);
    }
  });
});
