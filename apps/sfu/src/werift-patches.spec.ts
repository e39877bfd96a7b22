import { promises as dns } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createPeer } from './werift-config.js';

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
