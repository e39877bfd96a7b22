/**
 * `<radio-player>` with chat, embedded on another origin at 400×600 in Debian's Chromium, against
 * the real API serving the built player: the chat chunk (`/player-chat.mjs`) is loaded only once the
 * owner turns player chat on; the guest picks a name and chats over socket.io from the foreign
 * origin; the player lists who is listening (named listeners, "in chat", guests) as the station page
 * does, pushed; a site the owner does not list gets no chat. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { ChatHistoryResponse } from '@radiobroadcaster/contracts';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { connectSocket, emitAck } from '../../apps/api/testing/sockets.js';
import type { Socket } from 'socket.io-client';
import { launchChromium, screenshotPath } from '../support/browser.js';
import { strictCsp } from '../support/player-site.js';
import { createStation, startWebApp, until } from '../support/web-app.js';

describe('player chat on another site', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  let site: Server;
  let siteUrl: string;
  const pages: Page[] = [];
  const sockets: Socket[] = [];

  const settings = (body: Record<string, unknown>) =>
    fetch(`${app.url}/api/stations/chat/settings`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ stationId, ...body }),
    });

  async function open(): Promise<{ page: Page; chunks: string[] }> {
    const ctx = await browser.newContext({ viewport: { width: 400, height: 600 } });
    const page = await ctx.newPage();
    pages.push(page);
    const chunks: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('player-chat')) chunks.push(r.url());
    });
    await page.goto(siteUrl);
    await page.locator('radio-player').getByText('Together FM').first().waitFor();
    return { page, chunks };
  }

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchChromium();
    owner = await signUp(app.url, 'nightowl');
    const { station } = await createStation(app.url, owner, { name: 'Together FM' });
    stationId = station.id;
    const api = new URL(app.url).origin;
    // The strict embed CSP, plus the site's own stylesheet that sizes the player, and the API's
    // WebSocket origin (the chat's connection: `http:` sources do not cover `ws:` in Chromium).
    const csp = strictCsp(api)
      .replace("style-src 'none'", "style-src 'unsafe-inline'")
      .replace(`connect-src ${api}`, `connect-src ${api} ${api.replace(/^http/, 'ws')}`);
    site = createServer((_req, res) => {
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': csp,
      });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our radio</title>
<style>body{margin:0}radio-player{width:400px;height:600px}</style></head><body>
<script src="${api}/player.js"></script>
<radio-player station="${owner.username}/${station.slug}"></radio-player></body></html>`);
    });
    await new Promise<void>((ok) => site.listen(0, '127.0.0.1', ok));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    for (const p of pages) await p.context().close();
    await browser?.close();
    await app?.close();
    site?.close();
  });

  it('loads no chat code while player chat is off', async () => {
    const { page, chunks } = await open();
    // The player asked for the chat settings and stopped there.
    await until(
      'the player to have asked',
      async () => page.locator('radio-player').getByText('Together FM').count(),
      (n) => n > 0,
    );
    expect(await page.locator('radio-player').getByPlaceholder('Pick a name to chat').count()).toBe(
      0,
    );
    expect(chunks).toEqual([]);
  });

  it('chats as a guest from the other site once the owner turns it on', async () => {
    expect((await settings({ playerChat: true })).status).toBe(200);
    const { page, chunks } = await open();
    const player = page.locator('radio-player');
    const input = player.getByPlaceholder('Pick a name to chat');
    await input.waitFor();
    expect(chunks.length).toBe(1);
    // Impersonating the broadcaster is refused, in words.
    await input.fill('nightowl');
    await player.getByRole('button', { name: 'Join' }).click();
    await player.getByText('looks like the broadcaster').waitFor();
    await input.fill('Porchlight');
    await player.getByRole('button', { name: 'Join' }).click();
    const message = player.getByPlaceholder('Message as Porchlight');
    await message.waitFor();
    await message.fill('Hello from the embedded player');
    await player.getByRole('button', { name: 'Send' }).click();
    await player.getByText('Hello from the embedded player').waitFor();
    const history = (await (
      await fetch(`${app.url}/api/stations/${stationId}/chat`)
    ).json()) as ChatHistoryResponse;
    expect(history.messages.at(-1)).toMatchObject({
      text: 'Hello from the embedded player',
      author: { name: 'Porchlight', kind: 'guest', username: null },
    });
    // The player keeps its promise: nothing stored on the device.
    const cookies = await page.context().cookies();
    expect(cookies).toEqual([]);
    await page.screenshot({ path: screenshotPath('player-chat-400x600') });
    if (process.env.SHOTS_DIR)
      await page.screenshot({ path: `${process.env.SHOTS_DIR}/player-chat-400x600.png` });
  });

  it('lists who is listening, pushed: a visible listener appears and leaves, a chatting guest is "in chat"', async () => {
    // The earlier players (and their guest) leave first.
    for (const p of pages.splice(0)) await p.context().close();
    const { page, chunks } = await open();
    const player = page.locator('radio-player');
    const who = player.getByRole('region', { name: 'Who is listening' });
    // The guest of the previous test is gone; this player's own guest names itself.
    const input = player.getByPlaceholder('Pick a name to chat');
    await input.fill('Lamplighter');
    await player.getByRole('button', { name: 'Join' }).click();
    await player.getByPlaceholder('Message as Lamplighter').waitFor();
    const me = who.getByRole('listitem').filter({ hasText: 'Lamplighter' });
    await me.getByText('in chat').waitFor();
    expect(chunks.some((u) => u.includes('player-chat'))).toBe(true);

    // A signed-in listener who chose to be visible starts listening elsewhere: pushed here.
    const alice = await signUp(app.url, 'alicelistens');
    const aliceName = `User ${alice.username}`;
    const visible = await fetch(`${app.url}/api/account/presence`, {
      method: 'PUT',
      headers: { ...alice.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ visible: true }),
    });
    expect(visible.status).toBe(200);
    const socket = await connectSocket(app.url, sockets, alice.token);
    expect(await emitAck(socket, 'station:join', { stationId })).toMatchObject({ ok: true });
    expect(await emitAck(socket, 'presence:state', { stationId, playing: true })).toMatchObject({
      ok: true,
    });
    const aliceRow = who.getByRole('listitem').filter({ hasText: aliceName });
    await aliceRow.getByText('listening').waitFor();
    // Listening first, then those in chat.
    expect(await who.getByRole('listitem').allTextContents()).toEqual([
      `${aliceName[0]}${aliceName}listening`,
      'LLamplighterin chat',
    ]);
    await page.screenshot({ path: screenshotPath('player-presence-400x600') });
    if (process.env.SHOTS_DIR)
      await page.screenshot({ path: `${process.env.SHOTS_DIR}/player-presence-400x600.png` });

    // She leaves: gone from the list.
    socket.disconnect();
    await aliceRow.waitFor({ state: 'detached' });
    await me.waitFor();
  });

  it('refuses chat from a site the owner does not list', async () => {
    const add = await fetch(`${app.url}/api/me/allowed-domains`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain: 'radio.example' }),
    });
    expect(add.status).toBeLessThan(300);
    const { page } = await open();
    // The station cannot be played here, so the player loads no chat.
    await page
      .locator('radio-player')
      .getByText("This station can't be played on this site.")
      .waitFor();
    expect(await page.locator('radio-player').getByPlaceholder('Pick a name to chat').count()).toBe(
      0,
    );
  });
});
