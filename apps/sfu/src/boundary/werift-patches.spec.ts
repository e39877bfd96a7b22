import { promises as dns } from 'node:dns';
import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createSocket } from 'node:dgram';
import {
  classes,
  createTurnClient,
  DtlsClient,
  DtlsServer,
  Message,
  methods,
  parseMessage,
  RTCDtlsTransport,
  StunProtocol,
} from 'werift';
import { createTestListener, waitFor } from '../../testing/test-peers.js';
import { createPeer } from '../werift/werift-config.js';
import { createWeriftEngine } from '../werift/werift-engine.js';
import { CHECK_REQUESTS, CONSENT_RETRANSMISSIONS } from './werift-patches.js';

/** Names werift resolves (its STUN transactions look up the server's host first). */
function recordLookups() {
  const names: string[] = [];
  const original = dns.lookup;
  dns.lookup = ((host: string, ...rest: unknown[]) => {
    names.push(host);
    return (original as (...a: unknown[]) => unknown)(host, ...rest);
  }) as typeof dns.lookup;
  return { names, restore: () => (dns.lookup = original) };
}

describe('werift ICE gathering', () => {
  let rec: ReturnType<typeof recordLookups>;
  beforeEach(() => {
    rec = recordLookups();
  });
  afterEach(() => {
    rec.restore();
  });

  it('asks no STUN server when none is configured (werift would ask stun.l.google.com)', async () => {
    const pcs = Array.from({ length: 12 }, () => createPeer({ iceServers: [] }));
    await Promise.all(
      pcs.map(async (pc) => {
        pc.addTransceiver('audio', { direction: 'recvonly' });
        await pc.setLocalDescription(await pc.createOffer());
      }),
    );
    for (const pc of pcs) {
      expect(pc.iceGatheringState).toBe('complete');
      expect(pc.localDescription?.sdp).not.toMatch(/typ srflx/);
    }
    await Promise.all(pcs.map((pc) => pc.close()));
    expect(rec.names).toEqual([]);
  });

  it('still asks the STUN server it is given', async () => {
    const pc = createPeer({ iceServers: [{ urls: 'stun:localhost:3479' }] });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    void pc.setLocalDescription(await pc.createOffer());
    const deadline = Date.now() + 3000;
    while (!rec.names.includes('localhost') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await pc.close();
    expect(rec.names).toContain('localhost');
  });
});

describe('werift DTLS close', () => {
  it('tells the other end when the server ends a session (close_notify): its DTLS transport closes at once', async () => {
    const engine = await createWeriftEngine({ shards: 0 });
    const listener = await createTestListener(engine, 'st-close');
    try {
      await listener.connected;
      await waitFor(() => engine.listenerCount('st-close') === 1, 3000, 'connected on the server');
      const dtls = listener.pc.getTransceivers()[0]!.dtlsTransport;
      expect(dtls.state).toBe('connected');
      const t0 = Date.now();
      expect(await engine.removeListener('st-close', listener.sessionId)).toBe(true);
      await waitFor(() => dtls.state === 'closed', 1000, 'DTLS closed on the listener');
      expect(Date.now() - t0).toBeLessThan(1000);
      // werift's own connection state does not show it: the CLI watches the DTLS transport
      expect(listener.pc.connectionState).toBe('connected');
    } finally {
      await listener.close();
      await engine.close();
    }
  });
});

describe('werift X25519', () => {
  it('is node:crypto’s: same secrets as RFC 7748, tweetnacl’s contract, and a low-order key refused', () => {
    const require = createRequire(createRequire(import.meta.url).resolve('werift'));
    const nacl = require('tweetnacl') as {
      box: { keyPair: () => { publicKey: Uint8Array; secretKey: Uint8Array } };
      scalarMult: (n: Uint8Array, p: Uint8Array) => Uint8Array;
    };
    const a = nacl.box.keyPair();
    const b = nacl.box.keyPair();
    for (const k of [a.publicKey, a.secretKey]) {
      expect(k.length).toBe(32);
      expect(k.buffer.byteLength).toBe(32);
    }
    const ab = nacl.scalarMult(a.secretKey, b.publicKey);
    expect(Buffer.from(ab)).toEqual(Buffer.from(nacl.scalarMult(b.secretKey, a.publicKey)));
    // RFC 7748 6.1 test vector
    const alice = Buffer.from(
      '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
      'hex',
    );
    const bobPublic = Buffer.from(
      'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
      'hex',
    );
    expect(Buffer.from(nacl.scalarMult(alice, bobPublic)).toString('hex')).toBe(
      '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
    );
    // tweetnacl answers an all-zero secret for a low-order point; OpenSSL refuses it
    expect(() => nacl.scalarMult(alice, new Uint8Array(32))).toThrow();
  });
});

describe('werift certificate fingerprint', () => {
  it('is the SHA-256 of the certificate, in every answer, computed once per certificate', async () => {
    const cert = await (
      RTCDtlsTransport as unknown as {
        SetupCertificate(): Promise<{
          certPem: string;
          getFingerprints(): { algorithm: string; value: string }[];
        }>;
      }
    ).SetupCertificate();
    const expected = new X509Certificate(cert.certPem).fingerprint256;
    const first = cert.getFingerprints();
    expect(first).toEqual([{ algorithm: 'sha-256', value: expected }]);
    first.pop(); // a caller changing its copy changes nothing for the next
    expect(cert.getFingerprints()).toEqual([{ algorithm: 'sha-256', value: expected }]);
    // computed once: werift would build (and parse the PEM for) a new fingerprint every call
    expect(cert.getFingerprints()[0]).toBe(cert.getFingerprints()[0]);
    // what a listener's browser checks the DTLS certificate against
    const fingerprintsOf = async () => {
      const offerer = createPeer({ iceServers: [] });
      offerer.addTransceiver('audio', { direction: 'recvonly' });
      await offerer.setLocalDescription(await offerer.createOffer());
      const answerer = createPeer({ iceServers: [] });
      await answerer.setRemoteDescription(offerer.localDescription!);
      await answerer.setLocalDescription(await answerer.createAnswer());
      const sdp = answerer.localDescription!.sdp;
      await Promise.all([offerer.close(), answerer.close()]);
      return [...sdp.matchAll(/^a=fingerprint:(\S+) (\S+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    };
    expect(await fingerprintsOf()).toEqual([`sha-256 ${expected}`]);
    expect(await fingerprintsOf()).toEqual([`sha-256 ${expected}`]);
  });
});

/**
 * A werift DTLS client and server over an in-memory link whose datagrams a scenario may drop or hold
 * back, identified by record content type and handshake message type (readable until the epoch
 * changes). Each scenario is one thing a lossy link does; each broke werift's handshake for good.
 */
describe('werift DTLS handshake under loss', () => {
  type Side = 'client' | 'server';
  /** What happens to the n-th datagram from `from` of a handshake message type (0 = first copy). */
  type Rule = (from: Side, msgType: number | null, copy: number) => 'drop' | number | undefined;

  interface Link {
    client: InstanceType<typeof DtlsClient>;
    server: InstanceType<typeof DtlsServer>;
    errors: string[];
    close(): void;
  }

  const HANDSHAKE = 22;
  /** The handshake message type of a plaintext record, or null. */
  const msgTypeOf = (d: Buffer) => (d[0] === HANDSHAKE && d.readUInt16BE(3) === 0 ? d[13]! : null);

  /** `oneWayMs`: how long a datagram takes unless the rule says otherwise. */
  async function link(rule: Rule, oneWayMs = 2): Promise<Link> {
    const cert = await (
      RTCDtlsTransport as unknown as {
        SetupCertificate(): Promise<{
          certPem: string;
          privateKey: string;
          signatureHash: unknown;
        }>;
      }
    ).SetupCertificate();
    const timers = new Set<NodeJS.Timeout>();
    const copies = new Map<string, number>();
    const errors: string[] = [];
    let closed = false;
    const ends: Record<Side, { onData?: (b: Buffer) => void }> = { client: {}, server: {} };
    const transport = (from: Side) => {
      const to: Side = from === 'client' ? 'server' : 'client';
      return Object.assign(ends[from], {
        send: async (buf: Buffer) => {
          const type = msgTypeOf(buf);
          const key = `${from}/${type}`;
          const copy = copies.get(key) ?? 0;
          copies.set(key, copy + 1);
          const fate = rule(from, type, copy);
          if (fate === 'drop') return;
          const data = Buffer.from(buf);
          const t = setTimeout(() => {
            timers.delete(t);
            if (!closed) ends[to].onData?.(data);
          }, fate ?? oneWayMs);
          timers.add(t);
        },
        close: () => undefined,
      });
    };
    const options = {
      cert: cert.certPem,
      key: cert.privateKey,
      signatureHash: cert.signatureHash,
      srtpProfiles: [1],
      extendedMasterSecret: true,
    };
    const server = new DtlsServer({
      ...options,
      transport: transport('server'),
      certificateRequest: true,
    } as never);
    const client = new DtlsClient({ ...options, transport: transport('client') } as never);
    for (const [name, s] of [
      ['client', client],
      ['server', server],
    ] as const) {
      s.onError.subscribe((e: unknown) => errors.push(`${name}: ${String(e)}`));
    }
    void client.connect().catch((e: unknown) => errors.push(`client connect: ${String(e)}`));
    return {
      client,
      server,
      errors,
      close: () => {
        closed = true;
        for (const t of timers) clearTimeout(t);
      },
    };
  }

  /** Both ends connected, and application data gets through both ways (same keys on each end). */
  async function expectHandshake(l: Link): Promise<void> {
    try {
      await waitFor(
        () => (l.client.connected && l.server.connected) || l.errors.length > 0,
        8000,
        'both ends connected',
      ).catch(() => undefined);
      expect({ errors: l.errors, client: l.client.connected, server: l.server.connected }).toEqual({
        errors: [],
        client: true,
        server: true,
      });
      const got: string[] = [];
      l.server.onData.subscribe((b: Buffer) => got.push(`server got ${b.toString()}`));
      l.client.onData.subscribe((b: Buffer) => got.push(`client got ${b.toString()}`));
      await l.client.send(Buffer.from('ping'));
      await l.server.send(Buffer.from('pong'));
      await waitFor(() => got.length === 2, 2000, 'data both ways').catch(() => undefined);
      expect(got.sort()).toEqual(['client got pong', 'server got ping']);
    } finally {
      l.close();
    }
  }

  it('connects on a clean link', async () => {
    await expectHandshake(await link(() => undefined));
  });

  it("server: the client's Certificate lost once (its CertificateVerify arrives first)", async () => {
    await expectHandshake(
      await link((from, type, copy) =>
        from === 'client' && type === 11 && copy === 0 ? 'drop' : undefined,
      ),
    );
  });

  it("server: the client's ClientKeyExchange lost once (extended master secret over the right messages)", async () => {
    await expectHandshake(
      await link((from, type, copy) =>
        from === 'client' && type === 16 && copy === 0 ? 'drop' : undefined,
      ),
    );
  });

  it("client: the server's CertificateRequest lost once (the client still sends its certificate)", async () => {
    await expectHandshake(
      await link((from, type, copy) =>
        from === 'server' && type === 13 && copy === 0 ? 'drop' : undefined,
      ),
    );
  });

  it("client: the server's ServerHello lost once, then its CertificateRequest (the client still sends its certificate)", async () => {
    // werift handles the first copy's CertificateRequest by polling for the ServerHello; handed the
    // retransmitted flight without it, its ServerHelloDone went on alone and sent flight 5 without the
    // certificate the server had asked for (the server then waits for it forever)
    const l = await link((from, type, copy) =>
      from === 'server' && ((type === 2 && copy === 0) || (type === 13 && copy === 1))
        ? 'drop'
        : undefined,
    );
    await expectHandshake(l);
  });

  it('client: a HelloVerifyRequest late (the client sent ClientHello again, and gets two)', async () => {
    // 150 ms RTT; the first HelloVerifyRequest takes 600 ms: the client has sent ClientHello again
    // at 0.5 s, and gets the second answer first
    await expectHandshake(
      await link(
        (from, type, copy) => (from === 'server' && type === 3 && copy === 0 ? 600 : undefined),
        75,
      ),
    );
  });

  it('server: a copy of the first ClientHello late, after the handshake is done', async () => {
    // 150 ms RTT; the first ClientHello takes 1 s: the client has sent it again at 0.5 s, that copy
    // was answered and the handshake done before this one comes
    await expectHandshake(
      await link(
        (from, type, copy) => (from === 'client' && type === 1 && copy === 0 ? 1000 : undefined),
        75,
      ),
    );
  });
});

describe('werift ICE check retransmission', () => {
  /**
   * A connectivity check as werift's checkStart makes it (a Binding request with a retransmission
   * count of 4) to a peer whose answers are lost until its 6th request: werift alone gives up after
   * 5 requests (1.55 s); patched, it retransmits CHECK_REQUESTS times with backoff and gets the answer.
   */
  it('keeps retransmitting a check, backing off, until it is answered', async () => {
    const key = Buffer.from('remote-password-remote-password', 'utf8');
    const peer = createSocket('udp4');
    await new Promise<void>((r) => peer.bind(0, '127.0.0.1', r));
    let requests = 0;
    peer.on('message', (data, rinfo) => {
      const req = parseMessage(data);
      if (!req || req.messageClass !== classes.REQUEST) return;
      requests++;
      if (requests < 6) return; // lost on the way
      const res = new Message(methods.BINDING, classes.RESPONSE, req.transactionId)
        .setAttribute('XOR-MAPPED-ADDRESS', [rinfo.address, rinfo.port])
        .addMessageIntegrity(key)
        .addFingerprint();
      peer.send(res.bytes, rinfo.port, rinfo.address);
    });
    const protocol = new StunProtocol();
    await protocol.connectionMade(true, undefined, { udp4: '127.0.0.1' });
    const attempts: number[] = [];
    try {
      const [response] = await protocol.request(
        new Message(methods.BINDING, classes.REQUEST),
        ['127.0.0.1', (peer.address() as { port: number }).port],
        key,
        4,
        (attempt) => attempts.push(attempt),
      );
      expect(response.messageClass).toBe(classes.RESPONSE);
    } finally {
      await protocol.close();
      peer.close();
    }
    expect(requests).toBeGreaterThanOrEqual(6);
    expect(requests).toBeLessThanOrEqual(CHECK_REQUESTS);
    expect(attempts.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
  }, 30000);
});

describe('werift ICE consent check retransmission', () => {
  /** A consent check as werift's queryConsent makes it (options, no retransmission) answered only at its 3rd request. */
  it('retransmits a consent check twice before giving it up', async () => {
    const key = Buffer.from('remote-password-remote-password', 'utf8');
    const peer = createSocket('udp4');
    await new Promise<void>((r) => peer.bind(0, '127.0.0.1', r));
    let requests = 0;
    peer.on('message', (data, rinfo) => {
      const req = parseMessage(data);
      if (!req || req.messageClass !== classes.REQUEST) return;
      requests++;
      if (requests < 1 + CONSENT_RETRANSMISSIONS) return; // lost on the way
      const res = new Message(methods.BINDING, classes.RESPONSE, req.transactionId)
        .setAttribute('XOR-MAPPED-ADDRESS', [rinfo.address, rinfo.port])
        .addMessageIntegrity(key)
        .addFingerprint();
      peer.send(res.bytes, rinfo.port, rinfo.address);
    });
    const protocol = new StunProtocol();
    await protocol.connectionMade(true, undefined, { udp4: '127.0.0.1' });
    try {
      const [response] = await protocol.request(
        new Message(methods.BINDING, classes.REQUEST),
        ['127.0.0.1', (peer.address() as { port: number }).port],
        key,
        { retransmissions: 0, responseTimeout: 500, signal: new AbortController().signal },
      );
      expect(response.messageClass).toBe(classes.RESPONSE);
    } finally {
      await protocol.close();
      peer.close();
    }
    expect(requests).toBe(1 + CONSENT_RETRANSMISSIONS);
  }, 30000);
});

describe('werift TURN allocation refresh', () => {
  /** A TURN server on loopback that grants every ALLOCATE and REFRESH for `lifetime` seconds. */
  async function turnServer(lifetime: number) {
    const sock = createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
    const refreshes: number[] = [];
    sock.on('message', (data, rinfo) => {
      const req = parseMessage(data);
      if (!req || req.messageClass !== classes.REQUEST) return;
      const res = new Message(req.messageMethod, classes.RESPONSE, req.transactionId);
      if (req.messageMethod === methods.ALLOCATE)
        res
          .setAttribute('XOR-RELAYED-ADDRESS', ['127.0.0.1', 50000])
          .setAttribute('XOR-MAPPED-ADDRESS', [rinfo.address, rinfo.port]);
      if (req.messageMethod === methods.REFRESH)
        refreshes.push(req.getAttributeValue('LIFETIME') as number);
      res.setAttribute('LIFETIME', lifetime);
      sock.send(res.bytes, rinfo.port, rinfo.address);
    });
    const port = (sock.address() as { port: number }).port;
    return { port, refreshes, close: () => sock.close() };
  }
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('refreshes the allocation before it expires, and close() leaves no timer behind', async () => {
    const server = await turnServer(600);
    try {
      const before = timers();
      const client = await createTurnClient(
        { address: ['127.0.0.1', server.port], username: 'u', password: 'p' },
        { transport: 'udp' },
      );
      // the refresh loop sleeps 500 s (5/6 of 600); werift's sleep outlived close() and the process
      expect(timers()).toBeGreaterThan(before);
      await client.close();
      expect(timers()).toBe(before);
    } finally {
      server.close();
    }
  });

  it('sends REFRESH at 5/6 of the lifetime the server granted, asking for that lifetime', async () => {
    const server = await turnServer(1); // LIFETIME is whole seconds: a refresh every 833 ms
    try {
      const client = await createTurnClient(
        { address: ['127.0.0.1', server.port], username: 'u', password: 'p' },
        { transport: 'udp' },
      );
      try {
        await waitFor(() => server.refreshes.length >= 2, 10_000, 'two refreshes');
        expect(server.refreshes.slice(0, 2)).toEqual([1, 1]);
      } finally {
        await client.close();
      }
    } finally {
      server.close();
    }
  });
});
