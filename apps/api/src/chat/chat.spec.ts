import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  ChatHistoryResponse,
  ChatMessage,
  ChatSendAck,
  CreateStationResponse,
  PresenceUpdate,
  ReactionBurst,
  Station,
} from '@radiobroadcaster/contracts';
import type { Socket } from 'socket.io-client';
import { waitUntil } from '../../../../test/support/wait.js';
import { connectSocket, emitAck } from '../../testing/sockets.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { WebhookReceiver } from '../../testing/webhook-receiver.js';
import { DataSource } from 'typeorm';
import { ChatRepository } from './chat.repository.js';

type Ack = { ok: boolean; error?: string; message?: unknown; [k: string]: unknown };

describe('live together: presence, chat, reactions, moderation (embedded database)', () => {
  let t: TestApp;
  let owner: TestUser;
  let alice: TestUser;
  let station: Station;
  const sockets: Socket[] = [];

  const connect = (token?: string) => connectSocket(t.url, sockets, token);
  const emit = (s: Socket, event: string, body: unknown) => emitAck<Ack>(s, event, body);
  const joined = async (token?: string) => {
    const s = await connect(token);
    expect(await emit(s, 'station:join', { stationId: station.id })).toMatchObject({ ok: true });
    return s;
  };
  const collect = <T>(s: Socket, event: string) => {
    const got: T[] = [];
    s.on(event, (v: T) => got.push(v));
    return got;
  };
  const history = async () =>
    (await (await fetch(`${t.url}/api/stations/${station.id}/chat`)).json()) as ChatHistoryResponse;
  const post = (user: TestUser, path: string, body: unknown) =>
    fetch(`${t.url}/api/stations/chat/${path}`, {
      method: 'POST',
      headers: { ...user.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startTestApp({
      embedded: true,
      env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    owner = await signUp(t.url, 'nightowl');
    alice = await signUp(t.url, 'alice');
    const res = await fetch(`${t.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Together FM' }),
    });
    station = ((await res.json()) as CreateStationResponse).station;
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t.close();
  });

  it('lists visible signed-in listeners and named guests, pushed on join, play and leave', async () => {
    const put = await fetch(`${t.url}/api/account/presence`, {
      method: 'PUT',
      headers: { ...alice.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ visible: true }),
    });
    expect(put.status).toBe(200);
    const watcher = await joined();
    const updates = collect<PresenceUpdate>(watcher, 'presence:update');
    const a = await joined(alice.token);
    await waitUntil(
      () =>
        updates.some((u) => u.listeners.some((l) => l.username === 'alice' && l.state === 'chat')),
      5000,
      'alice in chat',
    );
    expect(await emit(a, 'presence:state', { stationId: station.id, playing: true })).toEqual({
      ok: true,
    });
    await waitUntil(
      () =>
        updates.at(-1)?.listeners.some((l) => l.username === 'alice' && l.state === 'listening') ??
        false,
      5000,
      'alice listening',
    );
    const rest = (await (
      await fetch(`${t.url}/api/stations/${station.id}/presence`)
    ).json()) as PresenceUpdate;
    expect(rest).toMatchObject({ stationId: station.id, count: 0, guests: 0 });
    expect(rest.listeners).toEqual([
      { name: 'User alice', username: 'alice', avatarUrl: null, state: 'listening', kind: 'user' },
    ]);
    a.disconnect();
    await waitUntil(() => updates.at(-1)?.listeners.length === 0, 5000, 'alice gone');
  });

  it('delivers a message once to everyone in the room, keeps it, and gives the last 100 on join', async () => {
    const reader = await joined();
    const got = collect<ChatMessage>(reader, 'chat:message');
    const guest = await joined();
    expect(await emit(guest, 'chat:send', { stationId: station.id, text: 'hi' })).toMatchObject({
      ok: false,
      error: 'Unauthorized',
    });
    const hello = await emit(guest, 'chat:hello', { stationId: station.id, name: 'Moonbeam' });
    expect(hello).toMatchObject({ ok: true, name: 'Moonbeam', kind: 'guest' });
    const ack = (await emit(guest, 'chat:send', {
      stationId: station.id,
      text: '  Hello from the guest room  ',
    })) as ChatSendAck;
    expect(ack).toMatchObject({
      ok: true,
      message: {
        text: 'Hello from the guest room',
        author: { name: 'Moonbeam', kind: 'guest', username: null },
      },
    });
    const o = await joined(owner.token);
    const ownerAck = (await emit(o, 'chat:send', {
      stationId: station.id,
      text: 'Welcome!',
    })) as ChatSendAck;
    expect(ownerAck).toMatchObject({
      ok: true,
      message: { author: { kind: 'owner', username: 'nightowl' } },
    });
    await waitUntil(() => got.length >= 2, 5000, 'two messages');
    expect(got.map((m) => m.text)).toEqual(['Hello from the guest room', 'Welcome!']);
    const h = await history();
    expect(h.messages.map((m) => m.text)).toEqual(['Hello from the guest room', 'Welcome!']);
    expect(h.settings).toMatchObject({ enabled: true, signedInOnly: false });
  });

  it('refuses guest names that impersonate the broadcaster, an account, or another guest', async () => {
    const g = await joined();
    for (const name of [
      'nightowl',
      'NightOwl',
      'nіghtowl' /* Cyrillic і */,
      'night.owl',
      'User alice',
      'ALICE',
      'moonbeam',
      'Moonbеam',
    ]) {
      const r = await emit(g, 'chat:hello', { stationId: station.id, name });
      expect({ name, r }).toMatchObject({ name, r: { ok: false, error: 'Conflict' } });
    }
    expect(
      await emit(g, 'chat:hello', { stationId: station.id, name: 'Star\u202Egazer' }),
    ).toMatchObject({
      ok: false,
      error: 'ValidationError',
    });
    expect(await emit(g, 'chat:hello', { stationId: station.id, name: 'Stargazer' })).toMatchObject(
      {
        ok: true,
      },
    );
  });

  it('refuses bad messages and forged events, storing nothing', async () => {
    const before = (await history()).messages.length;
    const s = await joined(alice.token);
    // 10 KB is over the socket's message limit: that connection is closed, nothing is read.
    const big = await joined(alice.token);
    const closed = new Promise<string>((r) => big.once('disconnect', r));
    await expect(
      emit(big, 'chat:send', { stationId: station.id, text: 'x'.repeat(10 * 1024) }),
    ).rejects.toThrow();
    await closed;
    const bad = [
      'x'.repeat(2000),
      'a'.repeat(501),
      'hello\u0007bell',
      'abc\u202Edcba',
      'zero\u200Bwidth',
      '<script>alert(1)</script>',
      '<b>bold</b>',
      '   ',
      42,
    ];
    for (const text of bad) {
      const r = await emit(s, 'chat:send', { stationId: station.id, text });
      expect(r.ok).toBe(false);
      expect(typeof r.message).toBe('string');
    }
    // Another room the socket never joined, and a body naming another identity.
    const other = await joined();
    expect(
      await emit(other, 'chat:send', {
        stationId: '00000000-0000-4000-8000-000000000000',
        text: 'hi',
      }),
    ).toMatchObject({
      ok: false,
      error: 'Forbidden',
    });
    expect(
      await emit(other, 'chat:send', {
        stationId: station.id,
        text: 'as alice',
        author: { username: 'alice' },
        userId: alice.id,
      }),
    ).toMatchObject({ ok: false, error: 'Unauthorized' });
    expect((await history()).messages.length).toBe(before);
  });

  it('limits floods from one client; others carry on', async () => {
    const s = await joined(alice.token);
    const acks = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        emit(s, 'chat:send', { stationId: station.id, text: `flood ${i}` }),
      ),
    );
    const ok = acks.filter((a) => a.ok).length;
    expect(ok).toBeLessThanOrEqual(6);
    expect(acks.some((a) => a.error === 'TooManyRequests')).toBe(true);
    const o = await joined(owner.token);
    expect(await emit(o, 'chat:send', { stationId: station.id, text: 'still here' })).toMatchObject(
      { ok: true },
    );
  });

  it('moderation: non-moderators refused; delete, ban, slow mode, signed-in only, clear, log', async () => {
    const watcher = await joined();
    const deleted = collect<{ id: string }>(watcher, 'chat:deleted');
    const bob = await signUp(t.url, 'bob');
    const b = await joined(bob.token);
    const m1 = (await emit(b, 'chat:send', {
      stationId: station.id,
      text: 'first from bob',
    })) as ChatSendAck & { ok: true };
    expect(m1.ok).toBe(true);
    // Alice is no moderator.
    for (const [path, body] of [
      ['delete', { stationId: station.id, messageId: m1.message.id }],
      ['ban', { stationId: station.id, messageId: m1.message.id }],
      ['clear', { stationId: station.id }],
      ['settings', { stationId: station.id, slowModeSeconds: 30 }],
    ] as const) {
      expect((await post(alice, path, body)).status).toBe(403);
    }
    expect((await history()).messages.some((m) => m.id === m1.message.id)).toBe(true);
    // The owner names alice moderator: now she can delete.
    expect(
      (
        await post(owner, 'moderators', {
          stationId: station.id,
          username: 'alice',
          moderator: true,
        })
      ).status,
    ).toBe(200);
    expect(
      (await post(alice, 'delete', { stationId: station.id, messageId: m1.message.id })).status,
    ).toBe(204);
    await waitUntil(() => deleted.some((d) => d.id === m1.message.id), 5000, 'delete pushed');
    // Slow mode: the second message is refused with a countdown.
    expect(
      (await post(owner, 'settings', { stationId: station.id, slowModeSeconds: 60 })).status,
    ).toBe(200);
    // the answer says the wait (the page's countdown starts from it, not from the settings push)
    expect(await emit(b, 'chat:send', { stationId: station.id, text: 'one' })).toMatchObject({
      ok: true,
      slowModeSeconds: 60,
    });
    const slow = await emit(b, 'chat:send', { stationId: station.id, text: 'two' });
    expect(slow).toMatchObject({ ok: false, error: 'TooManyRequests' });
    expect(slow.retryAfterSeconds).toBeGreaterThan(50);
    expect(String(slow.message)).toMatch(/Slow mode is on: you can send another message in \d+ s/);
    await post(owner, 'settings', { stationId: station.id, slowModeSeconds: 0 });
    // Ban: bob's messages go for everyone and he cannot post.
    const before = deleted.length;
    const ban = await post(owner, 'ban', { stationId: station.id, username: 'bob' });
    expect(ban.status).toBe(200);
    await waitUntil(() => deleted.length > before, 5000, 'ban removes messages');
    expect((await history()).messages.some((m) => m.author.username === 'bob')).toBe(false);
    expect(await emit(b, 'chat:send', { stationId: station.id, text: 'still?' })).toMatchObject({
      ok: false,
      error: 'Forbidden',
      message: 'You are banned from this chat.',
    });
    // Signed-in only: guests refused.
    await post(owner, 'settings', { stationId: station.id, signedInOnly: true });
    const g = await joined();
    expect(await emit(g, 'chat:hello', { stationId: station.id, name: 'Latecomer' })).toMatchObject(
      { ok: false },
    );
    await post(owner, 'settings', { stationId: station.id, signedInOnly: false });
    // Clear.
    const cleared = new Promise((r) => watcher.once('chat:cleared', r));
    expect((await post(alice, 'clear', { stationId: station.id })).status).toBe(204);
    await cleared;
    expect((await history()).messages).toEqual([]);
    const log = (await (
      await fetch(`${t.url}/api/stations/chat/log?stationId=${station.id}`, { headers: owner.auth })
    ).json()) as { entries: { actor: string; action: string }[] };
    expect(log.entries.map((e) => `${e.actor}:${e.action}`)).toEqual(
      expect.arrayContaining([
        'alice:delete',
        'nightowl:ban',
        'alice:clear',
        'nightowl:moderator-add',
      ]),
    );
    expect(
      (
        await fetch(`${t.url}/api/stations/chat/log?stationId=${station.id}`, {
          headers: alice.auth,
        })
      ).status,
    ).toBe(403);
  });

  it('aggregates reactions into a few bursts a second, whatever the presses', async () => {
    const watcher = await joined();
    const bursts = collect<ReactionBurst>(watcher, 'reaction:burst');
    const senders = await Promise.all([joined(), joined(), joined()]);
    const t0 = Date.now();
    await Promise.all(
      senders.flatMap((s) =>
        Array.from({ length: 10 }, () =>
          emit(s, 'reaction:send', { stationId: station.id, kind: 'heart' }),
        ),
      ),
    );
    expect(
      await emit(senders[0]!, 'reaction:send', { stationId: station.id, kind: 'poop' }),
    ).toMatchObject({ ok: false });
    await waitUntil(
      () => bursts.reduce((n, b) => n + (b.counts.heart ?? 0), 0) === 30,
      5000,
      'all 30 hearts',
    );
    const seconds = Math.max(1, (Date.now() - t0) / 1000);
    expect(bursts.length).toBeLessThanOrEqual(Math.ceil(seconds * 2) + 1);
  });
  it('sends chat.message and reaction.burst webhooks only once the owner turns them on', async () => {
    const receiver = await new WebhookReceiver('').start();
    try {
      const hook = await fetch(`${t.url}/api/stations/webhooks`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          stationId: station.id,
          url: receiver.url,
          events: ['chat.message', 'reaction.burst'],
        }),
      });
      expect(hook.status).toBe(201);
      receiver.secret = ((await hook.json()) as { secret: string }).secret;
      const o = await joined(owner.token);
      await post(owner, 'settings', {
        stationId: station.id,
        slowModeSeconds: 0,
        signedInOnly: false,
      });
      expect(
        await emit(o, 'chat:send', { stationId: station.id, text: 'no hook yet' }),
      ).toMatchObject({ ok: true });
      expect(
        (await post(owner, 'settings', { stationId: station.id, webhooks: true })).status,
      ).toBe(200);
      expect(await emit(o, 'chat:send', { stationId: station.id, text: 'hooked' })).toMatchObject({
        ok: true,
      });
      for (let i = 0; i < 5; i++)
        await emit(o, 'reaction:send', { stationId: station.id, kind: 'fire' });
      await waitUntil(
        () =>
          receiver.received.some((r) => r.type === 'chat.message') &&
          receiver.received.some((r) => r.type === 'reaction.burst'),
        15_000,
        'both webhooks',
      );
      const chat = receiver.received.filter((r) => r.type === 'chat.message');
      expect(
        chat.map(
          (r) => (JSON.parse(r.body) as { data: { message: { text: string } } }).data.message.text,
        ),
      ).toEqual(['hooked']);
      expect(chat.every((r) => r.manualVerified)).toBe(true);
      const bursts = receiver.received.filter((r) => r.type === 'reaction.burst');
      const fire = bursts.reduce(
        (n, r) =>
          n +
          ((JSON.parse(r.body) as { data: { counts: { fire?: number } } }).data.counts.fire ?? 0),
        0,
      );
      // One webhook per burst, not per press.
      expect(bursts.length).toBeLessThan(5);
      expect(fire).toBeLessThanOrEqual(5);
    } finally {
      await receiver.stop();
    }
  });
  it('reports reach the owner; the owner exports the chat; retention removes old messages', async () => {
    const o = await joined(owner.token);
    await post(owner, 'settings', { stationId: station.id, slowModeSeconds: 0 });
    const sent = (await emit(o, 'chat:send', {
      stationId: station.id,
      text: 'report me',
    })) as ChatSendAck & { ok: true };
    expect(sent.ok).toBe(true);
    expect(
      (
        await post(alice, 'report', {
          stationId: station.id,
          messageId: sent.message.id,
          reason: 'spam',
        })
      ).status,
    ).toBe(204);
    const reports = (await (
      await fetch(`${t.url}/api/stations/chat/reports?stationId=${station.id}`, {
        headers: owner.auth,
      })
    ).json()) as { reports: { reporter: string; reason: string; message: { text: string } }[] };
    expect(reports.reports[0]).toMatchObject({
      reporter: 'alice',
      reason: 'spam',
      message: { text: 'report me' },
    });
    const exported = await fetch(`${t.url}/api/stations/chat/export?stationId=${station.id}`, {
      headers: owner.auth,
    });
    expect(exported.status).toBe(200);
    const doc = (await exported.json()) as { messages: { text: string }[] };
    expect(doc.messages.map((m) => m.text)).toContain('report me');
    const bob = await signUp(t.url);
    expect(
      (
        await fetch(`${t.url}/api/stations/chat/export?stationId=${station.id}`, {
          headers: bob.auth,
        })
      ).status,
    ).toBe(403);
    // A message older than the station's retention goes; a recent one stays.
    await post(owner, 'settings', { stationId: station.id, retentionDays: 7 });
    const old = (await emit(o, 'chat:send', {
      stationId: station.id,
      text: 'from last month',
    })) as ChatSendAck & { ok: true };
    await t.app
      .get(DataSource)
      .query(`UPDATE chat_messages SET sent_at = now() - interval '8 days' WHERE id = $1`, [
        old.message.id,
      ]);
    expect(await t.app.get(ChatRepository).expire()).toBe(1);
    const texts = (await history()).messages.map((m) => m.text);
    expect(texts).toContain('report me');
    expect(texts).not.toContain('from last month');
  });
});
