import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { signUp, startTestApp, type TestApp } from '../../testing/test-app.js';
import { REDACT, redactUrl } from './logger.js';

describe('structured logs', () => {
  it('redacts credentials, cookies, passwords and tokens', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const logger = pino({ redact: { paths: REDACT, censor: '[redacted]' } }, sink);
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer secret-token',
          cookie: 'rb_session=abc',
          'user-agent': 'x',
        },
      },
      res: { headers: { 'set-cookie': 'rb_session=abc' } },
      body: { password: 'hunter2', token: 'tkn' },
    });
    const line = lines.join('');
    expect(line).not.toMatch(/secret-token|rb_session=abc|hunter2|"tkn"/);
    expect(JSON.parse(line).req.headers).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'user-agent': 'x',
    });
  });

  it('removes credential values from query strings and keeps the rest', () => {
    expect(redactUrl('/api/auth/verify-email?token=abc&next=%2Fstudio')).toBe(
      '/api/auth/verify-email?token=[redacted]&next=%2Fstudio',
    );
    expect(redactUrl('/x?access_token=1&api%5Fkey=2&Signature=3&page=4')).toBe(
      '/x?access_token=[redacted]&api%5Fkey=[redacted]&Signature=[redacted]&page=4',
    );
    expect(redactUrl('/api/stations/discover')).toBe('/api/stations/discover');
  });
});

describe('the request log of the running app', () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    t = await startTestApp({ env: { LOG_LEVEL: 'debug' }, logDestination: sink });
  });

  afterAll(async () => {
    await t.close();
  });

  it('logs one JSON line per request with no token, Authorization, cookie or query parameter', async () => {
    const owner = await signUp(t.url);
    await fetch(`${t.url}/api/auth/verify-email?token=LINK-SECRET-1234`);
    await fetch(`${t.url}/api/stations/discover`, {
      headers: { Authorization: 'Bearer HEADER-SECRET-5678', Cookie: 'rb_session=COOKIE-SECRET-9' },
    });
    // The second one collides on the slug: the failed INSERT is logged without its parameters.
    for (let i = 0; i < 2; i++) {
      await fetch(`${t.url}/api/stations`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'PARAM-SECRET-name', slug: 'same' }),
      });
    }
    await new Promise((r) => setTimeout(r, 200));

    const all = lines.join('\n');
    for (const secret of [
      'LINK-SECRET-1234',
      'HEADER-SECRET-5678',
      'COOKIE-SECRET-9',
      'PARAM-SECRET-name',
      owner.token,
      owner.password,
    ]) {
      expect(all).not.toContain(secret);
    }
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const verify = entries.find((e) =>
      (e.req as { url?: string } | undefined)?.url?.startsWith('/api/auth/verify-email'),
    );
    expect(verify).toMatchObject({
      level: 40,
      msg: 'request completed',
      req: { method: 'GET', url: '/api/auth/verify-email?token=[redacted]' },
      res: { statusCode: 400 },
    });
    expect(typeof verify!.reqId).toBe('string');
    // The public reads answered before Express log the same line.
    expect(
      entries.find(
        (e) => (e.req as { url?: string } | undefined)?.url === '/api/stations/discover',
      ),
    ).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      reqId: expect.any(String),
      responseTime: expect.any(Number),
    });
    expect(entries.some((e) => String(e.msg).startsWith('query failed'))).toBe(true);
  });
});
