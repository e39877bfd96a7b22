/**
 * The werift + Node-internals contract: everything this folder (the boundary) relies on that werift and
 * Node do not promise publicly, checked on real objects. A werift upgrade or a new Node that breaks one of
 * these fails here, by name, instead of somewhere in a listener's audio. (The behaviour each patch and
 * fast path gives is pinned by the specs beside this one: werift-patches, ice-mux, srtp-sender,
 * datagram-out.) CI runs it on Node 24 and again on Node 22, the oldest supported.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createSocket } from 'node:dgram';
import { datagramOut, lookupReplaceable, sendsThroughHandle } from './datagram-out.js';
import { describeFastPaths, fastPathMetrics, fastPaths } from './fast-paths.js';
import { handshakeStep, iceConnectionOf, offerSrtpProfiles } from './internals.js';
import { extractSrtpKeys } from './srtp-sender.js';
import { weriftPatchesApplied } from './werift-patches.js';
import {
  Connection,
  DtlsClient,
  DtlsServer,
  RTCDtlsTransport,
  RTCPeerConnection,
  StunProtocol,
  TurnProtocol,
  TcpPassiveProtocol,
} from './werift.js';
import { createPeer } from '../werift/werift-config.js';
import { waitFor } from '../../testing/test-peers.js';

const require = createRequire(import.meta.url);
const sfuPackage = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { dependencies: Record<string, string> };

const peers: RTCPeerConnection[] = [];
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
});

/** Two werift peers on loopback, offer/answer exchanged, connected (DTLS done, SRTP keys derived). */
async function connectedPair(): Promise<{
  sender: RTCPeerConnection;
  receiver: RTCPeerConnection;
}> {
  const sender = createPeer({ iceServers: [] });
  const receiver = createPeer({ iceServers: [] });
  peers.push(sender, receiver);
  sender.addTransceiver('audio', { direction: 'sendonly' });
  await sender.setLocalDescription(await sender.createOffer());
  await receiver.setRemoteDescription(sender.localDescription!);
  await receiver.setLocalDescription(await receiver.createAnswer());
  await sender.setRemoteDescription(receiver.localDescription!);
  await waitFor(
    () => sender.connectionState === 'connected' && receiver.connectionState === 'connected',
    20_000,
    'werift peers connected on loopback',
  );
  return { sender, receiver };
}

describe('werift boundary contract', () => {
  it('runs the werift version package.json pins exactly', () => {
    const pinned = sfuPackage.dependencies.werift;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/); // no ^ or ~: a new werift only on purpose
    expect(pinned).toBe('0.24.4');
    const entry = require.resolve('werift');
    const dir = entry.slice(
      0,
      entry.lastIndexOf('/node_modules/werift/') + '/node_modules/werift'.length,
    );
    const installed = (
      JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { version: string }
    ).version;
    expect(installed).toBe(pinned);
  });

  it('has the patches applied and the functions they replace where they were', () => {
    expect(weriftPatchesApplied()).toBe(true);
    const connection = Connection.prototype as unknown as Record<string, unknown>;
    expect(typeof connection.getCandidatePromises).toBe('function'); // the STUN fallback patch
    expect(typeof RTCDtlsTransport.prototype.stop).toBe('function'); // the close_notify patch
    expect(typeof DtlsClient).toBe('function'); // handshake under loss
    expect(typeof DtlsServer).toBe('function');
    expect(typeof StunProtocol.prototype.request).toBe('function'); // ICE check retransmission
    // TURN refresh on close: connectionMade replaces the per-instance `refresh` and arms `refreshHandle`
    expect(typeof TurnProtocol.prototype.connectionMade).toBe('function');
    // werift's own tweetnacl, whose X25519 the patches route to node:crypto
    const nacl = createRequire(require.resolve('werift'))('tweetnacl') as Record<string, unknown>;
    expect(typeof nacl.scalarMult).toBe('function');
    expect(typeof (nacl.box as Record<string, unknown>).keyPair).toBe('function');
  });

  it('finds the ICE connection members the one-port mux writes and calls', async () => {
    const peer = createPeer({ iceServers: [] });
    peers.push(peer);
    const t = peer.addTransceiver('audio', { direction: 'recvonly' });
    offerSrtpProfiles(t.dtlsTransport, [0x0001]);
    expect((t.dtlsTransport as unknown as { srtpProfiles: number[] }).srtpProfiles).toEqual([1]);
    await peer.setLocalDescription(await peer.createOffer());
    const conn = iceConnectionOf<Record<string, unknown>>(t.dtlsTransport);
    expect(conn).toBeInstanceOf(Connection);
    for (const name of ['localUsername', 'localPassword']) expect(typeof conn[name]).toBe('string');
    expect(typeof conn.generation).toBe('number');
    expect(typeof conn.iceControlling).toBe('boolean');
    expect(typeof conn.state).toBe('string');
    for (const name of ['protocols', 'localCandidates', 'checkList', 'earlyChecks']) {
      expect(Array.isArray(conn[name])).toBe(true);
    }
    for (const name of [
      'ensureProtocol',
      'pairLocalProtocol',
      'appendLocalCandidate',
      'getCandidatePromises',
      'restart',
      'connect',
    ]) {
      expect(typeof conn[name]).toBe('function');
    }
    // the protocols the mux subclasses: STUN over its sockets, passive ICE-TCP over its connections
    const stun = StunProtocol.prototype as unknown as Record<string, unknown>;
    expect(typeof stun.datagramReceived).toBe('function');
    const tcp = TcpPassiveProtocol.prototype as unknown as Record<string, unknown>;
    expect(typeof tcp.registerSocket).toBe('function');
    expect(typeof tcp.pruneForSelection).toBe('function');
  });

  it('reads where a handshake stands (ICE pairs and their checks, DTLS state and flight)', async () => {
    const fresh = createPeer({ iceServers: [] });
    peers.push(fresh);
    fresh.addTransceiver('audio', { direction: 'recvonly' });
    expect(handshakeStep(fresh)).toBe('ICE new [], DTLS new');
    const { sender, receiver } = await connectedPair();
    // the DTLS server (the offerer) ends at flight 6, the client at 7 (werift's "connected")
    expect(handshakeStep(sender)).toMatch(
      /^ICE (connected|completed) \[.*succeeded [1-9]\d*\+\d+\/[1-9].*\], DTLS connected at flight 6$/,
    );
    expect(handshakeStep(receiver)).toMatch(
      /^ICE (connected|completed) \[.*succeeded .*\], DTLS connected at flight 7$/,
    );
  });

  it('reads the outbound SRTP keys werift derived after the DTLS handshake', async () => {
    const { sender } = await connectedPair();
    const dtls = sender.getTransceivers()[0]!.dtlsTransport;
    const keys = extractSrtpKeys(dtls);
    expect(keys).not.toBeNull();
    expect([0x0001, 0x0007]).toContain(keys!.profile);
    expect(keys!.key.length).toBe(16);
    expect(keys!.salt.length).toBeGreaterThanOrEqual(12);
  });

  it('takes every fast path on this Node (24 and 22 are supported)', async () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect([22, 24]).toContain(major);
    expect(fastPaths()).toEqual({ udpHandleSend: true, udpSyncLookup: true, weriftPatches: true });
    expect(describeFastPaths(fastPaths())).toBe(
      'udp_handle_send=active udp_sync_lookup=active werift_patches=active',
    );
    expect(fastPathMetrics()).toContain('rb_sfu_fast_path{path="udp_handle_send"} 1');

    // and the fast send really delivers, through Node's UDP handle, on a bound socket
    const [a, b] = [createSocket('udp4'), createSocket('udp4')];
    try {
      await Promise.all([a, b].map((s) => new Promise<void>((r) => s.bind(0, '127.0.0.1', r))));
      expect(sendsThroughHandle(a)).toBe(true);
      expect(lookupReplaceable(a)).toBe(true);
      const got = new Promise<Buffer>((r) => b.once('message', r));
      datagramOut(a, b.address().port, '127.0.0.1')(Buffer.from('contract'));
      expect((await got).toString()).toBe('contract');
    } finally {
      a.close();
      b.close();
    }
  });
});
