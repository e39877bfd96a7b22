import { promises as dns } from 'node:dns';
import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { RTCDtlsTransport } from 'werift';
import { createTestListener, waitFor } from '../test-peers.js';
import { createPeer } from './werift-config.js';
import { createWeriftEngine } from './werift-engine.js';
import './werift-patches.js';

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
