import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/config.js';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody } from '../../testing/auth-helpers.js';
import { hashPassword, needsRehash, OWASP_SCRYPT, verifyPassword } from './password.js';

describe('password hashing', () => {
  it("hashes with OWASP's minimum scrypt cost by default (N=2^14, r=8, p=5)", async () => {
    const cost = loadConfig({ AUTH_SECRET: 'x'.repeat(32) }).passwordScrypt;
    expect(cost).toEqual({ N: 16384, r: 8, p: 5 });
    expect(cost).toEqual(OWASP_SCRYPT);
    const stored = await hashPassword('correct horse battery', cost);
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$[\w-]{22}\$[\w-]{86}$/);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
  });

  it('marks hashes of another cost for rehashing', async () => {
    const old = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
    expect(needsRehash(old, OWASP_SCRYPT)).toBe(true);
    expect(needsRehash(old, { N: 1024, r: 8, p: 1 })).toBe(false);
  });
});

describe('passwords at sign-up and sign-in', () => {
  let t: TestApp;
  let db: DataSource;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_AUTH_PER_MINUTE: '1000', PASSWORD_SCRYPT: '2048,8,2' },
    });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  const signUp = (body: ReturnType<typeof newUserBody>) =>
    request(t.url).post('/api/auth/sign-up/email').send(body);

  it.each([
    ['a common password', 'password123', /commonly used password/],
    ['a keyboard walk', 'qwertyuiop', /frequently used password/],
    ['a common password with a twist', 'letmein!!', /similar to a commonly used password/],
  ])('refuses %s with a plain-words field error', async (_what, password, reason) => {
    const res = await signUp({ ...newUserBody(), password }).expect(400);
    expect(res.body.error).toBe('ValidationError');
    expect(res.body.fields).toEqual([{ path: 'password', message: expect.stringMatching(reason) }]);
  });

  it('refuses a password made of the email address or the username', async () => {
    const body = newUserBody();
    const withEmail = await signUp({ ...body, password: `${body.email.toLowerCase()}!` }).expect(
      400,
    );
    expect(withEmail.body.fields).toEqual([
      { path: 'password', message: 'Your password must not contain your email address.' },
    ]);
    const withName = await signUp({ ...body, password: `${body.username}2024` }).expect(400);
    expect(withName.body.fields[0].path).toBe('password');
    await signUp(body).expect(200);
  });

  it('moves a hash made at an older cost to the current one at sign-in', async () => {
    const body = newUserBody();
    const up = await signUp(body).expect(200);
    const old = await hashPassword(body.password, { N: 1024, r: 8, p: 1 });
    await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [old, up.body.user.id]);
    await request(t.url)
      .post('/api/auth/sign-in/email')
      .send({ email: body.email, password: body.password })
      .expect(200);
    const [row] = (await db.query('SELECT password_hash FROM users WHERE id = $1', [
      up.body.user.id,
    ])) as { password_hash: string }[];
    expect(row!.password_hash).toMatch(/^scrypt\$2048\$8\$2\$/);
    await request(t.url)
      .post('/api/auth/sign-in/email')
      .send({ email: body.email, password: body.password })
      .expect(200);
  });
});
