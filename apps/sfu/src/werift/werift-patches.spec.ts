import { promises as dns } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createTestListener, waitFor } from '../test-peers.js';
import { createPeer } from './werift-config.js';
import { createWeriftEngine } from './werift-engine.js';

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
