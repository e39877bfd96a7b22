/**
 * Sign-up answers 409 for an address that has an account (a new account is signed in at once, so
 * the answers cannot look alike): per-IP and per-address limits bound how far that is probed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody } from '../../testing/auth-helpers.js';
import { signUpAddressKey } from './sign-up-address.js';

let ipSeq = 1;
/** A client address of its own (the app trusts X-Forwarded-For with TRUST_PROXY). */
const newIp = () => `198.51.100.${ipSeq++}`;

function attempt(t: TestApp, ip: string, body: Record<string, unknown>): request.Test {
  return request(t.url)
    .post('/api/auth/sign-up/email')
    .set('X-Forwarded-For', ip)
    .send(body as object);
}

async function expect429(res: request.Response, message: RegExp, windowSeconds: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: 'TooManyRequests', message: expect.stringMatching(message) });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('the per-address key', () => {
  it('ignores case, surrounding spaces and a +tag; keeps everything else', () => {
    expect(signUpAddressKey('  Ann+radio@Example.COM ')).toBe('ann@example.com');
    expect(signUpAddressKey('ann@example.com')).toBe('ann@example.com');
    expect(signUpAddressKey('a.n.n@example.com')).toBe('a.n.n@example.com');
    expect(signUpAddressKey('+x@example.com')).toBe('+x@example.com');
    for (const bad of [undefined, 42, '', 'no-at-sign', '@example.com', 'ann@'])
      expect(signUpAddressKey(bad)).toBeUndefined();
  });
});

describe.each([
  ['in memory', false],
  ['in Redis', true],
])('sign-up limits (%s)', (_label, redis) => {
  let t: TestApp;
  const env = {
    TRUST_PROXY: 'true',
    // Only the sign-up limits here (the per-minute auth limit has its own spec).
    RATE_LIMIT_AUTH_PER_MINUTE: '0',
    RATE_LIMIT_SIGN_UP_PER_IP: '3',
    RATE_LIMIT_SIGN_UP_PER_ADDRESS: '3',
  };
  beforeAll(async () => {
    t = await startTestApp({
      redis,
      env: { ...env, EVENT_PREFIX: `su-${randomBytes(4).toString('hex')}` },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the 4th attempt from one IP in the window, whatever the first three answered', async () => {
    const ip = newIp();
    const taken = newUserBody('taken');
    await attempt(t, newIp(), taken).expect(200);
    // A new account, an existing address (409) and a malformed body all count.
    await attempt(t, ip, newUserBody()).expect(200);
    await attempt(t, ip, { ...newUserBody(), email: taken.email }).expect(409);
    await attempt(t, ip, { email: 'not an address' }).expect(400);
    await expect429(
      await attempt(t, ip, newUserBody()),
      /^Too many sign-ups from this network, try again in \d+ seconds$/,
      3600,
    );
    // Another client is not held back by it.
    await attempt(t, newIp(), newUserBody()).expect(200);
  });

  it('refuses the 4th attempt with one address from as many IPs, +tags and case included', async () => {
    const victim = newUserBody('victim');
    await attempt(t, newIp(), victim).expect(200);
    const again = (email: string) => attempt(t, newIp(), { ...newUserBody(), email });
    await again(victim.email.toUpperCase()).expect(409);
    // A +tag is another account, but the same mailbox: counted with the address.
    await again(victim.email.replace('@', '+probe@')).expect(200);
    await expect429(
      await again(` ${victim.email} `),
      /^Too many sign-up attempts with this email address, try again in \d+ seconds$/,
      3600,
    );
    await expect429(await again(victim.email.replace('@', '+other@')), /email address/, 3600);
    // Other addresses are not held back by it.
    await attempt(t, newIp(), newUserBody()).expect(200);
  });
});

describe.each([
  ['in memory', false],
  ['in Redis', true],
])('sign-up limits end with their window (%s)', (_label, redis) => {
  const WINDOW_S = 8;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      redis,
      env: {
        TRUST_PROXY: 'true',
        RATE_LIMIT_AUTH_PER_MINUTE: '0',
        RATE_LIMIT_SIGN_UP_PER_IP: '1',
        RATE_LIMIT_SIGN_UP_PER_ADDRESS: '1',
        RATE_LIMIT_SIGN_UP_WINDOW_SECONDS: String(WINDOW_S),
        EVENT_PREFIX: `suw-${randomBytes(4).toString('hex')}`,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Polls until the attempt is no longer refused with 429 (deadline: three windows). */
  async function untilAccepted(send: () => request.Test): Promise<request.Response> {
    const deadline = Date.now() + 3 * WINDOW_S * 1000 + 5000;
    for (;;) {
      const res = await send();
      if (res.status !== 429) return res;
      if (Date.now() > deadline) throw new Error('still refused after three windows');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('accepts the IP and the address again once the window has passed', async () => {
    // A first sign-up loads what a cold app loads (password checks), outside the timed part.
    await attempt(t, newIp(), newUserBody('warm')).expect(200);
    const ipA = newIp();
    const first = newUserBody('first');
    const started = Date.now();
    await attempt(t, ipA, first).expect(200);
    const second = newUserBody('second');
    const byIp = await attempt(t, ipA, second);
    const byAddress = await attempt(t, newIp(), { ...newUserBody(), email: first.email });
    // Both refusals must fall inside one window for this test to say anything.
    expect(Date.now() - started).toBeLessThan(WINDOW_S * 1000);
    await expect429(byIp, /from this network/, WINDOW_S);
    await expect429(byAddress, /with this email address/, WINDOW_S);

    const ipAgain = await untilAccepted(() => attempt(t, ipA, second));
    expect(ipAgain.status).toBe(200);
    const addressAgain = await untilAccepted(() =>
      attempt(t, newIp(), { ...newUserBody(), email: first.email }),
    );
    expect(addressAgain.status).toBe(409);
  });
});
