import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Invite, Station, StationAccess } from '@radiobroadcaster/contracts';
import { LISTENING_TTL_MS } from '../../apps/api/src/access/access-sessions.js';
import {
  createTestDatabase,
  signUp,
  apiNodes,
  TEST_REDIS_URL,
  type TestUser,
} from '../../apps/api/testing/test-app.js';
import { runCliProcess, waitUntil, type RunningProcess } from '../support/processes.js';
import { within } from '../support/wait.js';
import { createRadioStation, oggListener, type RadioStation } from '../support/radio.js';

/**
 * Two API processes on one PostgreSQL and one Redis: the owner revokes an invite through node A
 * while its listener streams from node B; the event bus (a Redis stream) carries it and node B
 * ends that listener within 5 s, while a listener admitted by another invite keeps playing. The
 * owner's list of who is listening shows the listeners of both nodes from either node, and those of
 * a node that is killed leave it within the list's expiry.
 */
describe('private stations on two API nodes (PostgreSQL + Redis)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const api = apiNodes();
  const nodes = api.list;
  let owner: TestUser;
  let s: RadioStation;
  let broadcaster: RunningProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-private-2n-')),
      PUBLISHER_GRACE_MS: '1500',
      RATE_LIMIT_PUBLISH_PER_MINUTE: '1000',
    };
    // Sequentially: both run the migrations at start, the second finds them applied.
    await api.start(env);
    await api.start(env);
    owner = await signUp(nodes[0]!.url);
    s = await createRadioStation(nodes[0]!.url, owner, 'Two Node Choir');
  }, 90_000);

  afterAll(async () => {
    await broadcaster?.stop('SIGKILL');
    await api.stopAll();
    await db.drop();
  });

  it('a revocation made on node A cuts a listener streaming from node B within 5 s', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const post = async (path: string, body: unknown) =>
      fetch(`${a.url}${path}`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (await post('/api/stations/update', { stationId: s.id, visibility: 'private' })).status,
    ).toBe(200);
    // on air through node B
    broadcaster = runCliProcess([
      'broadcast',
      '--station',
      `${owner.username}/${s.slug}`,
      '--server',
      b.url,
      '--token',
      s.key,
      '--tone',
      '440',
      '--duration',
      '300',
    ]);
    await waitUntil(
      async () =>
        ((await (await fetch(`${b.url}/api/stations/${s.id}`)).json()) as Station).status ===
        'live',
      30_000,
      'live',
    );
    const invite = async (label: string) =>
      (await (await post('/api/stations/invites', { stationId: s.id, label })).json()) as Invite;
    const [gone, stays] = [await invite('revoked'), await invite('kept')];
    const streamOnB = async (i: Invite) => {
      const m3u = await (
        await fetch(`${b.url}/listen/${owner.username}/${s.slug}.m3u?invite=${i.token}`)
      ).text();
      const url = /^(http\S+\.ogg\?t=\S+)$/m.exec(m3u)![1]!;
      // the playlist names the public URL (node A's); the listener connects to node B
      return oggListener(url.replace(a.url, b.url).replace(/^http:\/\/[^/]+/, b.url));
    };
    const [lg, lk] = [await streamOnB(gone), await streamOnB(stays)];
    expect([lg.status, lk.status]).toEqual([200, 200]);
    await waitUntil(async () => lg.seconds() > 1 && lk.seconds() > 1, 15_000, 'both playing on B');

    let endedAt = 0;
    void lg.ended.then(() => (endedAt = Date.now()));
    // still streaming right before the revocation
    const before = lg.seconds();
    await waitUntil(async () => lg.seconds() > before + 0.5, 10_000, 'still streaming');
    expect(endedAt).toBe(0);
    const t0 = Date.now();
    const res = await fetch(`${a.url}/api/stations/invites/${gone.id}`, {
      method: 'DELETE',
      headers: owner.auth,
    });
    expect(res.status).toBe(204);
    await within(lg.ended, 5000, 'the stream being cut');
    const tookMs = endedAt - t0;
    process.stdout.write(`revocation on node A cut the listener on node B in ${tookMs} ms\n`);
    expect(tookMs).toBeLessThan(5000);
    const at = lk.seconds();
    await waitUntil(async () => lk.seconds() > at + 1, 10_000, 'the kept listener keeps playing');
    lk.stop();
  }, 90_000);

  it("the owner's list of who is listening shows both nodes' listeners from either node; a killed node's leave within the expiry", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const invite = async (label: string) =>
      (await (
        await fetch(`${b.url}/api/stations/invites`, {
          method: 'POST',
          headers: { ...owner.auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ stationId: s.id, label }),
        })
      ).json()) as Invite;
    const listening = async (node: (typeof nodes)[0]) => {
      const res = await fetch(`${node.url}/api/stations/${s.id}/access`, { headers: owner.auth });
      expect(res.status).toBe(200);
      return ((await res.json()) as StationAccess).listening
        .filter((l) => l.label.startsWith('through '))
        .map((l) => `${l.label} (${l.via}, ${l.transport})`)
        .sort();
    };
    const streamOn = async (node: (typeof nodes)[0], i: Invite) => {
      const m3u = await (
        await fetch(`${node.url}/listen/${owner.username}/${s.slug}.m3u?invite=${i.token}`)
      ).text();
      const url = /^(http\S+\.ogg\?t=\S+)$/m.exec(m3u)![1]!;
      return oggListener(url.replace(/^http:\/\/[^/]+/, node.url));
    };
    const [onA, onB] = [await invite('through A'), await invite('through B')];
    const [la, lb] = [await streamOn(a, onA), await streamOn(b, onB)];
    expect([la.status, lb.status]).toEqual([200, 200]);
    const both = ['through A (invite, http)', 'through B (invite, http)'];
    for (const node of [a, b])
      await waitUntil(
        async () => JSON.stringify(await listening(node)) === JSON.stringify(both),
        15_000,
        `both listeners in the list on ${node.url}`,
      );

    // node A dies without a word: its listener leaves B's list once its entry expires
    a.kill();
    const t0 = Date.now();
    await a.exited;
    await waitUntil(
      async () =>
        JSON.stringify(await listening(b)) === JSON.stringify(['through B (invite, http)']),
      LISTENING_TTL_MS + 20_000,
      "node A's listener gone from the list",
    );
    const tookMs = Date.now() - t0;
    process.stdout.write(`a killed node's listener left the list after ${tookMs} ms\n`);
    expect(tookMs).toBeLessThan(LISTENING_TTL_MS + 10_000);
    // the listener on the node that lives stays, and leaves when it hangs up
    const at = lb.seconds();
    await waitUntil(async () => lb.seconds() > at + 1, 10_000, 'B still streaming');
    lb.stop();
    la.stop();
    await waitUntil(
      async () => (await listening(b)).length === 0,
      10_000,
      'the hung-up listener gone from the list',
    );
  }, 120_000);
});
