import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

/**
 * Everything but the per-response values, and Express's automatic ETag on the JSON it sends
 * itself (errors, liveness); the public reads carry their own validators on both paths.
 */
function comparable(res: Response) {
  const own = res.headers.get('cache-control')?.startsWith('public');
  const skip = ['date', 'x-request-id', ...(own ? [] : ['etag'])];
  const headers = [...res.headers.entries()].filter(([k]) => !skip.includes(k));
  return { status: res.status, headers: Object.fromEntries(headers.sort()) };
}

describe('the fast lane in front of Express', () => {
  let t: TestApp;
  let owner: TestUser;
  let station: Station;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    const res = await fetch(`${t.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Lane' }),
    });
    station = ((await res.json()) as CreateStationResponse).station;
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers exactly as the Nest routes it stands in for (which still serve a trailing slash)', async () => {
    const cases = [
      `/api/stations/${station.id}`,
      '/api/stations/discover',
      `/api/users/${owner.username}/stations`,
      `/api/users/${owner.username}/stations/${station.slug}`,
      `/api/stations/7d0c4a8e-3f7b-4a51-9a55-6b1f4f3c2d10`,
      `/api/users/nobody-at-all/stations`,
      '/health/live',
    ];
    for (const path of cases) {
      const lane = await fetch(`${t.url}${path}`);
      const nest = await fetch(`${t.url}${path}/`);
      expect(comparable(lane)).toEqual(comparable(nest));
      expect(await lane.text()).toBe(await nest.text());
      expect(lane.headers.get('x-request-id')).toMatch(/^[\w-]+$/);
      // The same validator gives 304 on both.
      const etag = lane.headers.get('etag');
      if (etag) {
        const again = await fetch(`${t.url}${path}`, { headers: { 'If-None-Match': etag } });
        const againNest = await fetch(`${t.url}${path}/`, { headers: { 'If-None-Match': etag } });
        expect(again.status).toBe(304);
        expect(comparable(again)).toEqual(comparable(againNest));
      }
    }
  });

  it('leaves invalid ids, other methods and the proxy’s request id to the usual rules', async () => {
    const bad = await fetch(`${t.url}/api/stations/not-a-uuid`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('ValidationError');
    const post = await fetch(`${t.url}/api/stations/${station.id}`, { method: 'POST' });
    expect(post.status).toBe(404);
    const head = await fetch(`${t.url}/api/stations/${station.id}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const traced = await fetch(`${t.url}/api/stations/${station.id}?x=1`, {
      headers: { 'x-request-id': 'from-the-proxy-1' },
    });
    expect(traced.status).toBe(200);
    expect(traced.headers.get('x-request-id')).toBe('from-the-proxy-1');
  });
});
