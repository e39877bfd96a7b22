/**
 * A page on a site the owner did not allow hides its origin in a sandboxed iframe
 * (`<iframe sandbox="allow-scripts" srcdoc=…>`: the browser sends `Origin: null`) and tries to
 * listen: join, WHEP with the join token, and WHEP without a token. With the owner listing domains,
 * each is refused and no audio packet arrives; with no list (every site allowed), the same iframe
 * hears the station, which shows the page measures real audio.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { signUp, type TestApp, type TestUser } from '../../apps/api/testing/test-app.js';
import { launchChromium } from '../support/browser.js';
import {
  type CliBroadcast,
  cliBroadcastTone,
  createStation,
  startWebApp,
} from '../support/web-app.js';

interface Attempt {
  origin: string;
  join: { status: number; error?: string };
  whepWithToken?: { status: number; error?: string };
  whepAnonymous: { status: number; error?: string };
  /** RTP packets received by whichever WHEP session was accepted (until 60 came, 10 s at most). */
  packets: number;
}

/** The iframe's script: every way in a player would try, reported to the parent page. */
const probe = (api: string, stationId: string) => `
<script>
(async () => {
  const out = { origin: String(self.origin), packets: 0 };
  const body = async (res) => { try { return (await res.json()).error; } catch { return undefined; } };
  const join = await fetch('${api}/api/joinStationAsReceiver', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ stationId: '${stationId}' }),
  });
  out.join = { status: join.status, error: join.ok ? undefined : await body(join) };
  const token = join.ok ? (await join.json()).token : null;
  const listen = async (bearer) => {
    const pc = new RTCPeerConnection();
    pc.addTransceiver('audio', { direction: 'recvonly' });
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => { if (pc.iceGatheringState === 'complete') r(); else pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r(); setTimeout(r, 2000); });
    const headers = { 'Content-Type': 'application/sdp' };
    if (bearer) headers.Authorization = 'Bearer ' + bearer;
    const res = await fetch('${api}/whep/${stationId}', { method: 'POST', headers, body: pc.localDescription.sdp });
    const result = { status: res.status, error: res.status === 201 ? undefined : await body(res) };
    if (res.status === 201) {
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      // until 60 packets arrived (about 1.2 s of audio), 10 s at most
      for (const end = Date.now() + 10000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
        let n = 0;
        for (const s of (await pc.getStats()).values()) if (s.type === 'inbound-rtp') n += s.packetsReceived;
        out.packets = n;
        if (n > 60) break;
      }
    }
    pc.close();
    return result;
  };
  if (token) out.whepWithToken = await listen(token);
  out.whepAnonymous = await listen(null);
  parent.postMessage(out, '*');
})().catch((e) => parent.postMessage({ failed: String(e) }, '*'));
</script>`;

describe('allowed domains: a sandboxed iframe (Origin null) on a disallowed page', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let stationId: string;
  let cli: CliBroadcast;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    app = await startWebApp();
    owner = await signUp(app.url);
    const created = await createStation(app.url, owner, { name: 'Guarded', slug: 'guarded' });
    stationId = created.station.id;
    site = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      const srcdoc = probe(app.url, stationId).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
      res.end(`<!doctype html><title>Not an allowed site</title>
<script>window.attempt = new Promise((r) => addEventListener('message', (e) => r(e.data)));</script>
<iframe sandbox="allow-scripts" srcdoc="${srcdoc}"></iframe>`);
    });
    await new Promise<void>((ok) => site.listen(0, '127.0.0.1', ok));
    siteUrl = `http://localhost:${(site.address() as { port: number }).port}/`;
    [browser, cli] = await Promise.all([
      launchChromium(),
      cliBroadcastTone({
        server: app.url,
        station: `${owner.username}/guarded`,
        token: created.streamToken.token,
        hz: 440,
        timeoutMs: 30_000,
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
    site?.closeAllConnections();
    await new Promise<void>((ok) => (site ? site.close(() => ok()) : ok()));
    await app?.close();
  });

  const attempt = async (): Promise<Attempt> => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(siteUrl);
      const result = await page.evaluate(
        () => (window as unknown as { attempt: Promise<Attempt & { failed?: string }> }).attempt,
      );
      if (result.failed) throw new Error(`the iframe's script failed: ${result.failed}`);
      return result;
    } finally {
      await context.close();
    }
  };

  const domains = (method: 'POST' | 'DELETE', domain: string) =>
    fetch(`${app.url}/api/me/allowed-domains${method === 'DELETE' ? `/${domain}` : ''}`, {
      method,
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: method === 'POST' ? JSON.stringify({ domain }) : undefined,
    });

  it('refuses join and WHEP and no audio arrives when the owner lists domains', async () => {
    expect((await domains('POST', 'radio.example.com')).status).toBe(201);
    const a = await attempt();
    expect(a.origin).toBe('null');
    expect(a.join).toEqual({ status: 403, error: 'DOMAIN_NOT_ALLOWED' });
    expect(a.whepWithToken).toBeUndefined();
    expect(a.whepAnonymous).toEqual({ status: 403, error: 'DOMAIN_NOT_ALLOWED' });
    expect(a.packets).toBe(0);
  }, 30_000);

  it('plays in the same iframe when the owner allows every site (no list)', async () => {
    expect((await domains('DELETE', 'radio.example.com')).status).toBe(204);
    const a = await attempt();
    expect(a.join.status).toBe(200);
    expect(a.whepWithToken).toEqual({ status: 201 });
    expect(a.whepAnonymous).toEqual({ status: 201 });
    expect(a.packets).toBeGreaterThan(50);
  }, 30_000);
});
