import { afterEach, describe, expect, it } from '@jest/globals';
import { createSocket } from 'node:dgram';
import {
  MediaStreamTrack,
  Message,
  RtpHeader,
  RtpPacket,
  RTCPeerConnection,
  RTCRtpCodecParameters,
} from 'werift';
import { IceMux, type MuxTarget } from './ice-mux.js';
import { IceMuxRouter } from '../net/ice-mux-router.js';
import { waitFor } from '../../testing/test-peers.js';

const opus = () =>
  new RTCRtpCodecParameters({
    mimeType: 'audio/opus',
    clockRate: 48000,
    channels: 2,
    payloadType: 111,
    rtcpFeedback: [],
  });
const peer = (extra: Partial<ConstructorParameters<typeof RTCPeerConnection>[0]> = {}) =>
  new RTCPeerConnection({
    codecs: { audio: [opus()], video: [] },
    headerExtensions: { audio: [], video: [] },
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceUseIpv6: false,
    ...extra,
  });

interface Served {
  server: RTCPeerConnection;
  client: RTCPeerConnection;
  answer: string;
  received: () => number;
  send: (i: number) => void;
}

/** A client (werift, its own sockets) connects to a server PeerConnection put on `mux`. */
async function serve(
  mux: IceMux,
  munge: (sdp: string) => string = (s) => s,
  clientOpts: Partial<ConstructorParameters<typeof RTCPeerConnection>[0]> = {},
): Promise<Served> {
  const client = peer(clientOpts);
  const ct = client.addTransceiver('audio', { direction: 'recvonly' });
  let received = 0;
  ct.onTrack.subscribe((track) => track.onReceiveRtp.subscribe(() => received++));
  await client.setLocalDescription(await client.createOffer());
  const server = peer();
  const track = new MediaStreamTrack({ kind: 'audio' });
  server.addTransceiver(track, { direction: 'sendonly' });
  await server.setRemoteDescription({ type: 'offer', sdp: munge(client.localDescription!.sdp) });
  mux.attach(server);
  await server.setLocalDescription(await server.createAnswer());
  const answer = server.localDescription!.sdp;
  await client.setRemoteDescription({ type: 'answer', sdp: munge(answer) });
  const send = (i: number) =>
    track.writeRtp(
      new RtpPacket(
        new RtpHeader({ payloadType: 111, sequenceNumber: i, timestamp: i * 960, ssrc: 7 }),
        Buffer.alloc(100, i & 0xff),
      ),
    );
  return { server, client, answer, received: () => received, send };
}

const connected = (pc: RTCPeerConnection) =>
  waitFor(() => pc.connectionState === 'connected', 15000, `connected (${pc.connectionState})`);

async function flows(s: Served): Promise<void> {
  await connected(s.client);
  await connected(s.server);
  for (let i = 1; i <= 20; i++) s.send(i);
  await waitFor(() => s.received() >= 10, 10000, 'media at the client');
}

const candidates = (sdp: string) => sdp.split('\r\n').filter((l) => l.startsWith('a=candidate:'));

describe('one UDP and one TCP port for every ICE session of a node', () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function node(tags: string[], tcp = true) {
    const router = new IceMuxRouter({ udpPort: 0, tcpPort: tcp ? 0 : undefined });
    const ports = await router.start();
    cleanup.push(() => router.close());
    const muxes = tags.map((tag) => {
      const mux = new IceMux(
        { tag, udpPort: ports.udpPort, tcpPort: ports.tcpPort, announced: ['127.0.0.1'] },
        router,
      );
      router.addTarget(tag, mux);
      cleanup.push(() => mux.close());
      return mux;
    });
    return { router, ports, muxes };
  }

  it('serves several sessions on the one UDP port, each on a socket connected to its peer', async () => {
    const { ports, muxes } = await node(['m00']);
    const sessions: Served[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await serve(muxes[0]!);
      cleanup.push(
        () => s.client.close(),
        () => s.server.close(),
      );
      sessions.push(s);
    }
    for (const s of sessions) {
      for (const c of candidates(s.answer)) {
        expect(c).toMatch(
          new RegExp(
            `^a=candidate:\\S+ 1 (udp \\d+ 127\\.0\\.0\\.1 ${ports.udpPort} typ host|tcp \\d+ 127\\.0\\.0\\.1 ${ports.tcpPort} typ host tcptype passive)`,
          ),
        );
      }
    }
    await Promise.all(sessions.map(flows));
    const ufrags = sessions.map((s) => /a=ice-ufrag:(\S+)/.exec(s.answer)![1]!);
    expect(new Set(ufrags).size).toBe(3);
    for (const u of ufrags) expect(u.startsWith('m00')).toBe(true);
    expect(muxes[0]!.stats()).toMatchObject({ sessions: 3, dropped: 0, conflicts: 0 });
    expect(muxes[0]!.stats().links).toBeGreaterThanOrEqual(3);
    // No assertion on router.stats().routed: when the answering side's first check creates the
    // connected socket before the peer's first datagram, the kernel delivers it there (Node 22).
    // closing a session closes its sockets
    await sessions[0]!.server.close();
    await waitFor(() => muxes[0]!.stats().sessions === 2, 5000, 'session released');
  });

  it('routes first contact to the thread named by the ufrag tag', async () => {
    const { muxes } = await node(['m00', 's01']);
    const a = await serve(muxes[0]!);
    const b = await serve(muxes[1]!);
    cleanup.push(
      () => a.client.close(),
      () => a.server.close(),
      () => b.client.close(),
      () => b.server.close(),
    );
    await Promise.all([flows(a), flows(b)]);
    expect(muxes[0]!.stats().sessions).toBe(1);
    expect(muxes[1]!.stats().sessions).toBe(1);
    expect(/a=ice-ufrag:s01/.test(b.answer)).toBe(true);
  });

  it('connects over ICE-TCP (RFC 6544 passive, RFC 4571 framing) when neither side offers UDP', async () => {
    const { muxes, router } = await node(['m00']);
    const onlyTcp = (sdp: string) =>
      sdp
        .split('\r\n')
        .filter((l) => !(l.startsWith('a=candidate:') && / udp /i.test(l)))
        .join('\r\n');
    // one TCP path only: werift as a client nominates aggressively, and of two connections each
    // side could keep another one (browsers nominate one pair)
    const s = await serve(muxes[0]!, onlyTcp, {
      iceUseTcp: true,
      iceFilterCandidatePair: (pair) => pair.localCandidate.host === '127.0.0.1',
    });
    cleanup.push(
      () => s.client.close(),
      () => s.server.close(),
    );
    await flows(s);
    expect(router.stats().tcpAccepted).toBeGreaterThanOrEqual(1);
    expect(muxes[0]!.stats().tcpConnections).toBeGreaterThanOrEqual(1);
  });

  it('drops Binding requests for unknown ufrags or without the session password, opening no socket', async () => {
    const { ports, muxes } = await node(['m00'], false);
    const s = await serve(muxes[0]!);
    cleanup.push(
      () => s.client.close(),
      () => s.server.close(),
    );
    await flows(s);
    const before = muxes[0]!.stats();
    const ufrag = /a=ice-ufrag:(\S+)/.exec(s.answer)![1]!;
    const sock = createSocket('udp4');
    cleanup.push(() => sock.close());
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    for (const user of [`${ufrag}:evil`, 'm00nobody:evil', 'zzz1234:evil']) {
      const req = new Message(1, 0); // Binding request
      req.setAttribute('USERNAME', user);
      req.addMessageIntegrity(Buffer.from('wrong-password-wrong-password'));
      req.addFingerprint();
      sock.send(req.bytes, ports.udpPort, '127.0.0.1');
    }
    await waitFor(() => muxes[0]!.stats().dropped >= before.dropped + 2, 5000, 'drops');
    expect(muxes[0]!.stats().links).toBe(before.links);
  });

  it('hands datagrams a half-open socket caught to the router, which sends them on', () => {
    const seen: string[] = [];
    const target: MuxTarget = {
      udp: (d) => seen.push(d.toString()),
      tcpOpen: () => undefined,
      tcpData: () => undefined,
      tcpClosed: () => undefined,
    };
    const router = new IceMuxRouter({ udpPort: 0 });
    router.addTarget('s02', target);
    const req = new Message(1, 0);
    req.setAttribute('USERNAME', 's02abcdef:peer');
    router.stray(req.bytes, ['192.0.2.1', 5000]);
    // without a ufrag, the address learned from the Binding request routes it
    router.stray(Buffer.from('dtls'), ['192.0.2.1', 5000]);
    router.stray(Buffer.from('nobody'), ['192.0.2.2', 5000]);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe('dtls');
    expect(router.stats().dropped).toBe(1);
  });
});
