import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isReservedUsername, ROUTE_NAMES, USERNAME_PATTERN } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody } from '../../testing/auth-helpers.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');

/** First path segments that could collide with `/{username}` (no parameters, no dots). */
function topSegments(paths: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const first = p.split('/').filter(Boolean)[0];
    if (!first || /[$:*{(]/.test(first)) continue;
    out.add(first.toLowerCase());
  }
  return [...out].sort();
}

/** Names with a dot or other characters a username cannot have never collide. */
const couldBeUsername = (s: string) => USERNAME_PATTERN.test(s);

describe('reserved usernames come from the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_AUTH_PER_MINUTE: '0', RATE_LIMIT_SIGN_UP_PER_IP: '0' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("reserves every top-level route of the web app's route tree", () => {
    const tree = readFileSync(resolve(ROOT, 'web/src/routeTree.gen.ts'), 'utf8');
    const paths = [...tree.matchAll(/(?:path|fullPath): '([^']*)'/g)].map((m) => m[1]!);
    const segments = topSegments(paths);
    expect(segments).toEqual(expect.arrayContaining(['about', 'settings', 'signin', 'studio']));
    expect(segments.filter((s) => couldBeUsername(s) && !isReservedUsername(s))).toEqual([]);
  });

  it("reserves every top-level route of the server and the web app's public files", () => {
    const express = t.app.getHttpAdapter().getInstance() as {
      router: { stack: { route?: { path: string | string[] } }[] };
    };
    const routes = express.router.stack.flatMap((l) =>
      l.route ? (Array.isArray(l.route.path) ? l.route.path : [l.route.path]) : [],
    );
    const segments = topSegments([
      ...routes,
      ...Object.keys(t.config.redirects),
      ...readdirSync(resolve(ROOT, 'web/public')).map((f) => `/${f}`),
      '/assets/',
    ]);
    expect(segments).toEqual(expect.arrayContaining(['api', 'health', 'metrics', 'whep', 'whip']));
    expect(segments.filter((s) => couldBeUsername(s) && !isReservedUsername(s))).toEqual([]);
  });

  it('refuses each route name at sign-up and as a new username', async () => {
    const names = ROUTE_NAMES.filter((n) => n.length >= 3 && couldBeUsername(n));
    for (const username of names) {
      const res = await request(t.url)
        .post('/api/auth/sign-up/email')
        .send({ ...newUserBody(), username })
        .expect(400);
      expect(res.body.fields).toEqual([{ path: 'username', message: 'This username is reserved' }]);
    }
    const user = await request(t.url).post('/api/auth/sign-up/email').send(newUserBody());
    const res = await request(t.url)
      .post('/api/auth/update-user')
      .set('Authorization', `Bearer ${user.body.token}`)
      .send({ username: 'studio' })
      .expect(400);
    expect(res.body.fields[0].message).toBe('This username is reserved');
  });
});
