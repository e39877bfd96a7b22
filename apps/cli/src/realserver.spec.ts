/**
 * The CLI and its WHIP/WHEP library against the real API + SFU (apps/api's test app in this process,
 * PostgreSQL on 127.0.0.1:5432 as CI machines have it, listeners in the SFU's own thread).
 * What the CLI does is checked here: commands, flags, error messages, packet records, DELETEs.
 * The whole path with separate processes and 20 listeners is test/e2e/live-audio.test.ts.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../api/testing/test-app.js';
import { ApiClient, ApiError } from './api.js';
import { runCli, type CliIO, type LoadSummary } from './cli.js';
import { ToneSource } from './sources.js';
import { sha1Hex, type Summary } from './stats.js';
import { WhepListener, type ListenerStats } from './whep.js';
import { WhipPublisher, type SentPacket } from './whip.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const ac = new AbortController();
  const value: CliIO = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env: {},
    signal: ac.signal,
  };
  return {
    io: value,
    /** As Ctrl-C would. */
    abort: () => ac.abort(),
    text: () => err.join(''),
    json: <T>() => JSON.parse(out.join('').trim().split('\n').pop()!) as T,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** One packet as both sides record it (the CLI's NDJSON records or the library's callbacks). */
interface Pkt {
  seq: number;
  ts: number;
  sha1: string;
}

const readRecord = (path: string): (Pkt & Record<string, unknown>)[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Pkt & Record<string, unknown>);

/**
 * Lines a listener's packets up with the publisher's. The SFU forwards payloads unchanged but may
 * shift sequence numbers and timestamps by a constant per publisher, so the shift is the one
 * (among those the first received payload allows) that explains the most packets; then every
 * received packet must be the sent packet at its shifted seq, with the same payload and shifted
 * timestamp, in the publisher's order.
 */
function compareWithPublisher(sent: Pkt[], got: Pkt[]) {
  const index = new Map(sent.map((s, i) => [s.seq, i]));
  const at = (r: Pkt, dSeq: number) => index.get((r.seq - dSeq) & 0xffff);
  const same = (r: Pkt, s: Pkt, dTs: number) => s.sha1 === r.sha1 && (r.ts - s.ts) >>> 0 === dTs;
  let best = { dSeq: 0, dTs: 0, score: -1 };
  for (const s of sent) {
    if (got.length === 0 || s.sha1 !== got[0].sha1) continue;
    const dSeq = (got[0].seq - s.seq) & 0xffff;
    const dTs = (got[0].ts - s.ts) >>> 0;
    let score = 0;
    for (const r of got) {
      const i = at(r, dSeq);
      if (i !== undefined && same(r, sent[i], dTs)) score++;
    }
    if (score > best.score) best = { dSeq, dTs, score };
  }
  let matched = 0;
  let mismatched = 0;
  let notSent = 0;
  let outOfOrder = 0;
  let prev = -1;
  let first = -1;
  for (const r of got) {
    const i = at(r, best.dSeq);
    if (i === undefined) {
      notSent++;
      continue;
    }
    if (same(r, sent[i], best.dTs)) matched++;
    else mismatched++;
    if (i <= prev) outOfOrder++;
    if (first < 0) first = i;
    prev = i;
  }
  const expected = first < 0 ? 0 : prev - first + 1;
  return {
    matched,
    mismatched,
    notSent,
    outOfOrder,
    lossPercent: expected ? (100 * (expected - matched)) / expected : 100,
  };
}

interface Request {
  method: string;
  path: string;
  status: number;
}

describe('radio-broadcaster against the real API and SFU', () => {
  let t: TestApp;
  let owner: TestUser;
  /** Station A for the library test, station B for the commands. */
  const A = { id: '', address: '', token: '' };
  const B = { id: '', address: '', token: '' };
  /** Every HTTP request the server answered, as the server saw it. */
  const requests: Request[] = [];
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_JOIN_PER_MINUTE: '1000',
        SFU_SHARDS: '0',
        PUBLISHER_GRACE_MS: '1500',
      },
    });
    (t.app.getHttpServer() as Server).on('request', (req: IncomingMessage, res: ServerResponse) => {
      res.on('finish', () =>
        requests.push({ method: req.method!, path: req.url!, status: res.statusCode }),
      );
    });
    owner = await signUp(t.url);
    for (const [s, name] of [
      [A, 'Library FM'],
      [B, 'CLI FM'],
    ] as const) {
      const res = await fetch(`${t.url}/api/stations`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as CreateStationResponse;
      s.id = created.station.id;
      s.address = `${owner.username}/${created.station.slug}`;
      s.token = created.streamToken.token;
    }
    dir = mkdtempSync(join(tmpdir(), 'rb-cli-real-'));
  }, 60000);
  afterAll(async () => {
    await t?.close();
  });

  const station = async (s: { id: string }) =>
    (await (await fetch(`${t.url}/api/stations/${s.id}`)).json()) as Station;
  const whip = (s: { id: string }, method: string) =>
    requests.filter((r) => r.method === method && r.path.startsWith(`/whip/${s.id}`));
  const whep = (s: { id: string }, method: string) =>
    requests.filter((r) => r.method === method && r.path.startsWith(`/whep/${s.id}`));

  it('explains unknown stations, stations that are not live, bad credentials and unreachable servers', async () => {
    const cli = async (argv: string[]) => {
      const c = io();
      const code = await runCli([...argv, '--server', t.url], c.io);
      return { code, text: c.text() };
    };
    const user = owner.username;
    expect(await cli(['listen', '--station', `${user}/nope`])).toEqual({
      code: 1,
      text: `radio-broadcaster: station "${user}/nope" not found (404 StationNotFoundError)\n`,
    });
    const notLive = `station "${B.address}" is not live right now (409 STATION_NOT_ACTIVE)`;
    let r = await cli(['listen', '--station', B.address]);
    expect(r.code).toBe(1);
    expect(r.text).toContain(`radio-broadcaster: ${notLive}\n`);
    r = await cli(['load', '--station', B.address, '--listeners', '2', '--duration', '0.2']);
    expect(r.code).toBe(1);
    expect(r.text).toContain(`connected 0/2 (peak 0), failed 2, silent 0\n`);
    expect(r.text).toContain(`error ×2: ${notLive}\n`);
    const broadcast = ['broadcast', '--station', B.address, '--duration', '1'];
    r = await cli([...broadcast, '--email', owner.email, '--password', 'wrong password']);
    expect(r.code).toBe(1);
    expect(r.text).toContain(
      'radio-broadcaster: authentication failed: Invalid email or password (401 Unauthorized)\n',
    );
    r = await cli([...broadcast, '--token', 'forged']);
    expect(r.code).toBe(1);
    expect(r.text).toContain(
      'radio-broadcaster: authentication failed: Invalid station token (401 Unauthorized)\n',
    );
    r = await cli([...broadcast, '--token', A.token]);
    expect(r.code).toBe(1);
    expect(r.text).toContain(
      'radio-broadcaster: not allowed: This token is for another station (403 Forbidden)\n',
    );
    expect(whip(B, 'POST').map((x) => x.status)).toEqual([401, 403]);
    expect(await station(B)).toMatchObject({ status: 'offline', viewerCount: 0 });

    const closed = await closedPort();
    const c = io();
    expect(
      await runCli(['listen', '--station', 'a/b', '--server', `http://127.0.0.1:${closed}`], c.io),
    ).toBe(1);
    expect(c.text()).toBe(
      `radio-broadcaster: cannot reach http://127.0.0.1:${closed}/api/users/a/stations/b: ECONNREFUSED\n`,
    );

    // The same failures from the library: ApiError with the status and the server's tag.
    const api = new ApiClient(t.url);
    await expect(api.signIn(owner.email, 'wrong password')).rejects.toMatchObject({
      status: 401,
      tag: 'Unauthorized',
    });
    const nope = api.getStationByAddress(`${user}/nope`);
    await expect(nope).rejects.toBeInstanceOf(ApiError);
    await expect(nope).rejects.toMatchObject({ status: 404, tag: 'StationNotFoundError' });
    await expect(api.joinStationAsReceiver(B.id)).rejects.toMatchObject({
      status: 409,
      tag: 'STATION_NOT_ACTIVE',
    });
    const pub = new WhipPublisher({
      whipUrl: api.whipUrl(B.id),
      token: 'bad',
      source: new ToneSource(),
    });
    await expect(pub.start()).rejects.toMatchObject({ status: 401, tag: 'Unauthorized' });
    expect(pub.state).toBe('failed');
  }, 30000);

  it('WhipPublisher → WhepListeners: states, paced packets, joins, viewerCount, identical payloads, DELETEs', async () => {
    const api = new ApiClient(t.url);
    await api.signIn(owner.email, owner.password);
    const st = await api.getStationByAddress(A.address);
    expect(st.id).toBe(A.id);
    const { token } = await api.refreshStationToken(A.id);
    const sent: SentPacket[] = [];
    const states: string[] = [];
    const pub = new WhipPublisher({
      whipUrl: api.whipUrl(A.id),
      token,
      source: new ToneSource({ frequency: 440 }),
      // 8 s: three listeners join after the station is live and must hear a second of it before
      // it ends; on a loaded CI machine their joins took 4.4 s, and 5 s of audio left them 0.6 s.
      durationMs: 8000,
      record: (p) => sent.push({ ...p, payload: Buffer.from(p.payload) }),
      onState: (s) => states.push(s),
    });
    const running = pub.run();
    await waitFor(async () => (await station(A)).status === 'live', 10000, 'station A live');

    // Two listeners join through joinStationAsReceiver, one POSTs straight to the WHEP URL.
    const anonymous = new ApiClient(t.url);
    const joined = await anonymous.joinStationAsReceiver(A.id);
    const got: { seq: number; timestamp: number; payload: Buffer }[][] = [[], [], []];
    const listeners = got.map(
      (arr, i) =>
        new WhepListener({
          ...(i < 2
            ? { api: anonymous, stationId: A.id }
            : { whepUrl: anonymous.resolve(joined.whepUrl), token: joined.token }),
          record: (p) => arr.push({ ...p, payload: Buffer.from(p.payload) }),
        }),
    );
    await Promise.all(listeners.map((l) => l.start()));
    await waitFor(async () => (await station(A)).viewerCount === 3, 5000, 'viewerCount 3');
    for (const f of await Promise.all(listeners.map((l) => l.firstPacket(15000))))
      expect(f).toBeGreaterThan(0);
    await waitFor(
      () => listeners.every((l) => l.packetsReceived >= 50) || pub.state !== 'connected',
      15000,
      'a second of audio at every listener',
    );
    await Promise.all(listeners.map((l) => l.stop()));
    await waitFor(async () => (await station(A)).viewerCount === 0, 5000, 'viewerCount 0');
    const stats = await running;

    expect(states).toEqual(['connecting', 'connected', 'stopping', 'stopped']);
    expect(stats).toMatchObject({ state: 'stopped', packetsSent: 400, error: undefined });
    expect(sent.length).toBe(400);
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i].index).toBe(i);
      expect(sent[i].seq).toBe((sent[i - 1].seq + 1) & 0xffff);
      expect(sent[i].timestamp).toBe((sent[i - 1].timestamp + 960) >>> 0);
    }
    const pkt = (p: { seq: number; timestamp: number; payload: Buffer }): Pkt => ({
      seq: p.seq,
      ts: p.timestamp,
      sha1: sha1Hex(p.payload),
    });
    for (const [i, l] of listeners.entries()) {
      const ls = l.stats;
      expect(ls).toMatchObject({ state: 'stopped', error: undefined });
      expect(ls.packetsReceived).toBeGreaterThanOrEqual(50);
      expect(ls.packetsReceived).toBe(got[i].length);
      expect(ls.lossPercent).toBeLessThan(1);
      expect(ls.firstPacketMs).toBeGreaterThan(0);
      expect(ls.jitterMs).toBeGreaterThanOrEqual(0); // no bound: the test machine may be busy
      const cmp = compareWithPublisher(sent.map(pkt), got[i].map(pkt));
      expect(cmp).toMatchObject({ matched: got[i].length, mismatched: 0, notSent: 0 });
      expect(cmp.outOfOrder).toBe(0);
      expect(cmp.lossPercent).toBeLessThan(1);
    }
    // Every session ended with a DELETE the server accepted.
    expect(whip(A, 'POST').map((r) => r.status)).toEqual([201]);
    expect(whip(A, 'DELETE')).toEqual([
      { method: 'DELETE', path: expect.stringMatching(/\/sessions\//), status: 204 },
    ]);
    expect(whep(A, 'POST').map((r) => r.status)).toEqual([201, 201, 201]);
    expect(whep(A, 'DELETE').map((r) => r.status)).toEqual([204, 204, 204]);
  }, 60000);

  it('broadcast → listen and load --listeners 5: records match byte for byte, viewerCount, Ctrl-C sends the DELETE', async () => {
    const record = join(dir, 'sent.ndjson');
    const b = io();
    const broadcasting = runCli(
      [
        'broadcast',
        '--station',
        B.address,
        '--server',
        t.url,
        '--token',
        B.token,
        '--tone',
        '440',
        '--duration',
        '60',
        '--record',
        record,
        '--json',
      ],
      b.io,
    );
    await waitFor(async () => (await station(B)).status === 'live', 15000, 'station B live');

    // A second broadcaster (signed in: another station token) is turned away while B is live.
    const second = io();
    expect(
      await runCli(
        [
          'broadcast',
          '--station',
          B.address,
          '--server',
          t.url,
          '--email',
          owner.email,
          '--password',
          owner.password,
          '--duration',
          '1',
        ],
        second.io,
      ),
    ).toBe(1);
    expect(second.text()).toContain(`signed in as ${owner.username}\n`);
    expect(second.text()).toContain(
      `radio-broadcaster: station "${B.address}" already has a live publisher: This station already has a live publisher (409)\n`,
    );

    let peak = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        peak = Math.max(peak, (await station(B)).viewerCount);
        await sleep(200);
      }
    })();
    const l = io();
    const load = io();
    const [listenCode, loadCode] = await Promise.all([
      runCli(
        [
          'listen',
          '--station',
          B.address,
          '--server',
          t.url,
          '--duration',
          '4',
          '--json',
          '--publisher-log',
          record,
          '--record',
          join(dir, 'got.ndjson'),
        ],
        l.io,
      ),
      runCli(
        [
          'load',
          '--station',
          B.address,
          '--server',
          t.url,
          '--listeners',
          '5',
          '--ramp',
          '20',
          '--duration',
          '4',
          '--json',
          '--publisher-log',
          record,
        ],
        load.io,
      ),
    ]);
    watching = false;
    await watcher;
    // They left while the station was still live: viewerCount back to 0.
    await waitFor(async () => (await station(B)).viewerCount === 0, 5000, 'viewerCount 0');
    b.abort(); // Ctrl-C
    const broadcastCode = await broadcasting;
    if (listenCode !== 0 || loadCode !== 0 || broadcastCode !== 0) {
      console.log(`listen:\n${l.text()}\nload:\n${load.text()}\nbroadcast:\n${b.text()}`);
    }
    expect(listenCode).toBe(0);
    expect(loadCode).toBe(0);
    expect(broadcastCode).toBe(0);

    // Ctrl-C: the broadcaster DELETEd its WHIP session; the station goes offline after the grace period.
    expect(whip(B, 'DELETE')).toEqual([
      { method: 'DELETE', path: expect.stringMatching(/\/sessions\//), status: 204 },
    ]);
    await waitFor(async () => (await station(B)).status === 'offline', 15000, 'B offline');
    expect(await station(B)).toMatchObject({ status: 'offline', isActive: false, viewerCount: 0 });
    // Every listener (1 + 5) left with a DELETE.
    expect(whep(B, 'POST').map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(whep(B, 'DELETE').map((r) => r.status)).toEqual(Array(6).fill(204));
    // viewerCount counted them while they listened.
    expect(peak).toBeGreaterThanOrEqual(5);
    expect(peak).toBeLessThanOrEqual(6);

    const bs = b.json<{
      command: string;
      state: string;
      stationId: string;
      packetsSent: number;
      error?: string;
    }>();
    expect(bs).toMatchObject({ command: 'broadcast', state: 'stopped', stationId: B.id });
    expect(bs.packetsSent).toBeGreaterThan(200);
    expect(bs.error).toBeUndefined();
    expect(b.text()).toMatch(/live \(connected in \d+ ms\)/);
    const seen = [
      ...b.text().matchAll(/live · \d+s · \d+ packets sent · station live · (\d+) listeners?/g),
    ];
    expect(Math.max(0, ...seen.map((m) => Number(m[1])))).toBeGreaterThan(0);
    expect(b.text()).toMatch(/stopped: \d+ packets/);

    // The publisher's record: one line per packet sent, consecutive seq and timestamps.
    const sent = readRecord(record);
    expect(sent.length).toBe(bs.packetsSent);
    expect(sent[0]).toEqual({
      i: 0,
      seq: expect.any(Number),
      ts: expect.any(Number),
      t: expect.any(Number),
      len: expect.any(Number),
      sha1: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i].i).toBe(i);
      expect(sent[i].seq).toBe((sent[i - 1].seq + 1) & 0xffff);
      expect(sent[i].ts).toBe((sent[i - 1].ts + 960) >>> 0);
    }

    // listen: its record holds every packet it got; each is the publisher's, byte for byte, in order.
    const ls = l.json<
      ListenerStats & { payloadsMatched: number; payloadsMismatched: number; latencyMs: Summary }
    >();
    expect(ls).toMatchObject({ command: 'listen', station: B.address, state: 'stopped' });
    expect(ls.packetsReceived).toBeGreaterThan(100);
    expect(ls.lossPercent).toBeLessThan(1);
    const got = readRecord(join(dir, 'got.ndjson'));
    expect(got.length).toBe(ls.packetsReceived);
    const cmp = compareWithPublisher(sent, got);
    expect(cmp).toMatchObject({ matched: got.length, mismatched: 0, notSent: 0, outOfOrder: 0 });
    expect(cmp.lossPercent).toBeLessThan(1);
    // ...and its own --publisher-log check agrees (the tail may not have been in the file yet).
    expect(ls.payloadsMismatched).toBe(0);
    expect(ls.payloadsMatched).toBeGreaterThan(ls.packetsReceived - 25);
    expect(ls.latencyMs.count).toBe(ls.payloadsMatched);
    expect(ls.latencyMs.min).toBeGreaterThan(0);
    expect(ls.firstPacketMs).toBeGreaterThan(0);

    const ld = load.json<LoadSummary>();
    expect(ld).toMatchObject({ requested: 5, connected: 5, failed: 0, silent: 0, errors: {} });
    expect(ld.peakConnected).toBe(5);
    expect(ld.lossPercent.max).toBeLessThan(1);
    expect(ld.packetsPerListener.min).toBeGreaterThan(100);
    expect(ld.firstAudioMs.count).toBe(5);
    expect(ld.latency?.payloadsMismatched).toBe(0);
    expect(ld.latency?.payloadsMatched).toBeGreaterThan(
      (ld.packetsPerListener.min ?? 0) * 5 - 5 * 25,
    );
    expect(load.text()).toMatch(/\[\d+s\] connected \d\/5/);
    expect(load.text()).toContain('connected 5/5 (peak 5), failed 0, silent 0\n');
  }, 60000);
});
