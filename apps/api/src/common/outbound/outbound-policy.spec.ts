import type { LookupAddress } from 'node:dns';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { fakeDns } from '../../../testing/fake-dns.js';
import { testConfig } from '../../../testing/test-app.js';
import { isForbiddenAddress, socketHost } from './outbound-address.js';
import { describeOutboundError, OutboundPolicy, OutboundRefused } from './outbound-policy.js';

/** A loopback TCP listener that counts the connections it gets. */
async function listener(
  host = '127.0.0.1',
): Promise<{ server: Server; port: number; count: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((ok) => server.listen(0, host, ok));
  return { server, port: (server.address() as AddressInfo).port, count: () => n };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
const track = <T extends { server: Server | HttpServer }>(x: T): T => {
  const sockets = new Set<{ destroy: () => void }>();
  x.server.on(
    'connection',
    (s: { destroy: () => void; once: (e: 'close', f: () => void) => void }) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    },
  );
  closers.push(
    () =>
      new Promise((ok) => {
        for (const s of sockets) s.destroy();
        x.server.close(() => ok());
      }),
  );
  return x;
};

describe('outbound addresses', () => {
  it('refuses private, loopback, link-local, metadata, CGNAT, ULA, special-purpose and IPv4-in-IPv6 forms', () => {
    for (const a of [
      '0.0.0.0',
      '0.1.2.3',
      '10.1.2.3',
      '100.64.0.1',
      '100.127.255.254',
      '127.0.0.1',
      '127.255.0.9',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.170',
      '192.0.2.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::127.0.0.1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:10.0.0.1',
      '::ffff:0:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::127.0.0.1',
      '64:ff9b:1::1',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
      '2001::1',
      '2001:db8::1',
      '3fff::1',
      '100::1',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'fe80::1%lo',
      'fec0::1',
      'ff02::1',
      'not-an-address',
      '',
    ]) {
      expect([a, isForbiddenAddress(a)]).toEqual([a, true]);
    }
  });

  it('allows public addresses, IPv4-mapped and NAT64 forms of public IPv4 included', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.1',
      '172.32.0.1',
      '198.17.255.255',
      '198.20.0.1',
      '223.255.255.254',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect([a, isForbiddenAddress(a)]).toEqual([a, false]);
    }
  });

  it('gives a socket the IPv6 literal of a URL without its brackets', () => {
    expect(socketHost(new URL('http://[::1]:8000').hostname)).toBe('::1');
    expect(socketHost('icecast.example.com')).toBe('icecast.example.com');
  });
});

describe('outbound policy', () => {
  const strict = (table: Record<string, string[]> = {}) =>
    new OutboundPolicy({ allowPrivateNetworks: false, lookup: fakeDns(table) });

  it('judges saved URLs: IP literals in any spelling and localhost refused, names left to connect time', () => {
    const p = strict();
    for (const url of [
      'http://127.0.0.1:6379',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://localhost:8000',
      'http://radio.localhost/',
      'http://localhost./',
      'http://[::1]:8000',
      'http://[::ffff:169.254.169.254]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'https://10.0.0.8/',
      'http://100.64.1.1/',
    ]) {
      expect([url, p.urlProblem(url)]).toEqual([
        url,
        expect.stringContaining('is a private or reserved address'),
      ]);
    }
    expect(p.urlProblem('https://icecast.example.com:8000')).toBeNull();
    expect(p.urlProblem('http://8.8.8.8/')).toBeNull();
    expect(p.urlProblem('ftp://example.com/')).toBe('must be an http(s) URL');
    expect(
      new OutboundPolicy({ allowPrivateNetworks: true }).urlProblem('http://127.0.0.1/'),
    ).toBeNull();
  });

  it('answers only allowed addresses from DNS, and refuses a name that has nothing else', async () => {
    const p = strict({
      'mixed.test': ['127.0.0.1', '93.184.216.34', '::1', '2606:4700:4700::1111'],
      'internal.test': ['10.0.0.5', 'fd00::5'],
    });
    const all = await new Promise<LookupAddress[]>((ok, ko) =>
      p.lookup('mixed.test', { all: true }, (err, a) =>
        err ? ko(err) : ok(a as unknown as LookupAddress[]),
      ),
    );
    expect(all.map((a) => a.address)).toEqual(['93.184.216.34', '2606:4700:4700::1111']);
    const one = await new Promise<string>((ok, ko) =>
      p.lookup('mixed.test', {}, (err, a) => (err ? ko(err) : ok(a as string))),
    );
    expect(one).toBe('93.184.216.34');
    const refused = await new Promise<Error | null>((ok) =>
      p.lookup('internal.test', {}, (err) => ok(err)),
    );
    expect(refused).toBeInstanceOf(OutboundRefused);
    expect(describeOutboundError(refused)).toBe(
      'internal.test is a private or reserved address: this server only connects to public addresses',
    );
  });

  it('checks the address connected to: a name that resolves to loopback (DNS rebinding) never connects', async () => {
    const target = track(await listener());
    const dns = fakeDns({ 'rebind.test': ['127.0.0.1'] });
    const p = new OutboundPolicy({ allowPrivateNetworks: false, lookup: dns });
    await expect(
      p.connect({ host: 'rebind.test', port: target.port, tls: false, timeoutMs: 5000 }),
    ).rejects.toBeInstanceOf(OutboundRefused);
    await expect(
      p.request(`http://rebind.test:${target.port}/`, { timeoutMs: 5000 }),
    ).rejects.toBeInstanceOf(OutboundRefused);
    expect(dns.asked).toEqual(['rebind.test', 'rebind.test']);
    // IP literals and localhost are refused before any lookup or connection.
    for (const host of ['127.0.0.1', '[::1]', '::ffff:127.0.0.1', 'localhost']) {
      await expect(
        p.connect({ host, port: target.port, tls: false, timeoutMs: 5000 }),
      ).rejects.toBeInstanceOf(OutboundRefused);
    }
    await expect(
      p.request(`http://[::ffff:7f00:1]:${target.port}/`, { timeoutMs: 5000 }),
    ).rejects.toBeInstanceOf(OutboundRefused);
    expect(dns.asked).toHaveLength(2);
    expect(target.count()).toBe(0);

    // The operator's switch: the same name connects (to our own loopback listener).
    const allowed = new OutboundPolicy({ allowPrivateNetworks: true, lookup: dns });
    const socket = await allowed.connect({
      host: 'rebind.test',
      port: target.port,
      tls: false,
      timeoutMs: 5000,
    });
    socket.destroy();
    const deadline = Date.now() + 5000;
    while (target.count() === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(target.count()).toBe(1);
  });

  it('connects to an IPv6 literal (allowed by the switch, on ::1)', async () => {
    const target = track(await listener('::1'));
    const p = new OutboundPolicy({ allowPrivateNetworks: true });
    const socket = await p.connect({
      host: '[::1]',
      port: target.port,
      tls: false,
      timeoutMs: 5000,
    });
    expect(socket.remoteAddress).toBe('::1');
    socket.destroy();
  });

  it('never follows a redirect (switch on, loopback servers)', async () => {
    let followed = 0;
    const second = createHttpServer((_req, res) => {
      followed++;
      res.end('second');
    });
    await new Promise<void>((ok) => second.listen(0, '127.0.0.1', ok));
    track({ server: second });
    const secondPort = (second.address() as AddressInfo).port;
    const first = createHttpServer((_req, res) => {
      res.writeHead(302, { Location: `http://127.0.0.1:${secondPort}/` }).end();
    });
    await new Promise<void>((ok) => first.listen(0, '127.0.0.1', ok));
    track({ server: first });
    const p = new OutboundPolicy({ allowPrivateNetworks: true });
    const res = await p.request(`http://127.0.0.1:${(first.address() as AddressInfo).port}/`, {
      timeoutMs: 5000,
    });
    expect(res.status).toBe(302);
    expect(followed).toBe(0);
  });

  it('describes failures in its own words, never with what the server sent', async () => {
    const liar = track(
      await (async () => {
        const server = createServer((s) => {
          s.on('error', () => undefined);
          s.end('-ERR SECRET-BANNER redis_version:7.2\r\n');
        });
        await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
        return { server, port: (server.address() as AddressInfo).port };
      })(),
    );
    const p = new OutboundPolicy({ allowPrivateNetworks: true });
    const err = await p
      .request(`http://127.0.0.1:${liar.port}/`, { timeoutMs: 5000 })
      .catch((e: unknown) => e);
    expect(describeOutboundError(err)).toBe('Unexpected answer from the server (not HTTP)');
    const closed = track(await listener());
    await new Promise<void>((ok) => closed.server.close(() => ok()));
    closers.pop();
    const refused = await p
      .connect({ host: '127.0.0.1', port: closed.port, tls: false, timeoutMs: 5000 })
      .catch((e: unknown) => e);
    expect(describeOutboundError(refused)).toBe('Connection refused');
  });
});

describe('the operator switch', () => {
  it('is off by default; OUTBOUND_ALLOW_PRIVATE_NETWORKS or its older name WEBHOOK_ALLOW_PRIVATE_NETWORKS turns it on', () => {
    expect(testConfig().outbound.allowPrivateNetworks).toBe(false);
    expect(
      testConfig({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }).outbound.allowPrivateNetworks,
    ).toBe(true);
    expect(
      testConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).outbound.allowPrivateNetworks,
    ).toBe(true);
  });
});
