import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { goertzelPower, OpusDecoder, OpusEncoder } from '@radiobroadcaster/audio';
import {
  MediaStreamTrack,
  Message,
  RtpHeader,
  RtpPacket,
  type RTCPeerConnection,
} from '../boundary/werift.js';
import { createWeriftEngine } from '../werift/werift-engine.js';
import { createPeer } from '../werift/werift-config.js';
import { waitFor } from '../../testing/test-peers.js';
import { holdsFor } from '../../../../test/support/wait.js';

/**
 * One UDP port per SFU node: an engine with worker-thread shards and `udpPort` serves a publisher
 * and listeners on that port alone. The publisher sends a real Opus 440 Hz tone; what the listeners
 * decode must be that tone. The worker runs the compiled shard: build apps/sfu first.
 */
describe('one UDP port for every WebRTC session of an SFU node', () => {
  const repo = fileURLToPath(new URL('../../../../', import.meta.url));
  let engine: Awaited<ReturnType<typeof createWeriftEngine>>;
  const peers: RTCPeerConnection[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [`${repo}node_modules/typescript/bin/tsc`, '-b', 'apps/sfu'], {
      cwd: repo,
      stdio: 'inherit',
    });
    engine = await createWeriftEngine({ shards: 2, udpPort: 0, publisherTimeoutMs: 60000 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close().catch(() => undefined)));
    await engine?.close();
  });

  const candidates = (sdp: string) => sdp.split('\r\n').filter((l) => l.startsWith('a=candidate:'));
  const ufragOf = (sdp: string) => /a=ice-ufrag:(\S+)/.exec(sdp)![1]!;
  const connected = (pc: RTCPeerConnection, what: string) =>
    waitFor(() => pc.connectionState === 'connected', 20_000, `${what} (${pc.connectionState})`);

  it('many sessions share the one port, hear the tone, and a wrong-ufrag packet is dropped', async () => {
    expect(engine.shardMode).toBe('worker');
    const port = engine.stats().net!.udpPort;
    expect(port).toBeGreaterThan(0);
    const station = 'one-port';

    // publisher: a real Opus tone. A werift ↔ werift handshake may stall on a loaded machine (with
    // a socket per session too): a stalled attempt is retried, as a WHIP client would.
    let pub!: RTCPeerConnection;
    let track!: MediaStreamTrack;
    const answers: string[] = [];
    for (let attempt = 1; ; attempt++) {
      pub = createPeer({ iceServers: [] });
      peers.push(pub);
      track = new MediaStreamTrack({ kind: 'audio' });
      pub.addTransceiver(track, { direction: 'sendonly' });
      await pub.setLocalDescription(await pub.createOffer());
      const published = await engine.publish(station, pub.localDescription!.sdp);
      await pub.setRemoteDescription({ type: 'answer', sdp: published.answerSdp });
      try {
        await connected(pub, 'publisher connected');
        answers.push(published.answerSdp);
        break;
      } catch (err) {
        await pub.close();
        if (attempt === 3) throw err;
      }
    }

    // listeners, spread over both shards
    const N = 8;
    const received: Buffer[][] = [];
    for (let i = 0; i < N; i++) {
      const got: Buffer[] = [];
      received.push(got);
      for (let attempt = 1; ; attempt++) {
        const pc = createPeer({ iceServers: [] });
        peers.push(pc);
        pc.addTransceiver('audio', { direction: 'recvonly' }).onTrack.subscribe((t) =>
          t.onReceiveRtp.subscribe((rtp) => got.push(Buffer.from(rtp.payload))),
        );
        await pc.setLocalDescription(await pc.createOffer());
        const { answerSdp } = await engine.addListener(station, pc.localDescription!.sdp);
        await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
        try {
          await connected(pc, `listener ${i} connected`);
          answers.push(answerSdp);
          break;
        } catch (err) {
          await pc.close();
          if (attempt === 3) throw err;
        }
      }
    }

    // every session's candidates name the node's one port, each with a ufrag of its own
    for (const sdp of answers) {
      const cands = candidates(sdp);
      expect(cands.length).toBeGreaterThan(0);
      for (const c of cands) expect(c.split(' ')[5]).toBe(String(port));
    }
    const ufrags = answers.map(ufragOf);
    expect(new Set(ufrags).size).toBe(N + 1);
    expect(ufrags[0]!.startsWith('m00')).toBe(true);
    expect(new Set(ufrags.slice(1).map((u) => u.slice(0, 3)))).toEqual(new Set(['s00', 's01']));
    await waitFor(() => engine.listenerCount(station) === N, 5000, 'listener count');

    // 2 s of a 440 Hz tone
    const enc = new OpusEncoder({ channels: 2 });
    const frames = 100;
    const t0 = Date.now();
    for (let f = 0; f < frames; f++) {
      const pcm = new Int16Array(960 * 2);
      for (let i = 0; i < 960; i++) {
        const v = Math.round(16000 * Math.sin((2 * Math.PI * 440 * (f * 960 + i)) / 48000));
        pcm[2 * i] = v;
        pcm[2 * i + 1] = v;
      }
      const header = new RtpHeader({
        payloadType: 111,
        sequenceNumber: 100 + f,
        timestamp: f * 960,
        marker: f === 0,
        ssrc: 4321,
      });
      track.writeRtp(new RtpPacket(header, enc.encode(pcm)));
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + (f + 1) * 20 - Date.now())));
    }
    enc.delete();
    await waitFor(
      () => received.every((r) => r.length >= frames - 2),
      5000,
      `the tone at every listener (${received.map((r) => r.length).join(',')})`,
    );
    for (const got of received) {
      const dec = new OpusDecoder(2);
      const left: number[] = [];
      for (const p of got.slice(10)) {
        const pcm = dec.decode(p);
        for (let i = 0; i < pcm.length; i += 2) left.push(pcm[i]! / 32768);
      }
      dec.delete();
      const at = goertzelPower(left, 440, 48000);
      expect(at).toBeGreaterThan(0.02);
      expect(goertzelPower(left, 1000, 48000)).toBeLessThan(at / 100);
    }

    // shards report their mux figures once a second
    await waitFor(
      () => (engine.stats().net?.sessions ?? 0) === N + 1,
      5000,
      `${N + 1} sessions on the port: ${JSON.stringify(engine.stats().net)}`,
    );
    const before = engine.stats().net!;
    expect(before.links).toBeGreaterThanOrEqual(N + 1);

    // a Binding request for a listener's ufrag with the wrong password, one for an unknown session
    // of a shard, one for no thread at all: none is answered, none opens a socket
    const probe = createSocket('udp4');
    const answered: Buffer[] = [];
    probe.on('message', (d) => answered.push(d));
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    for (const user of [`${ufrags[1]}:evil`, 's00nobody:evil', 'zzzzzzzz:evil']) {
      const req = new Message(1, 0);
      req.setAttribute('USERNAME', user);
      req.addMessageIntegrity(Buffer.from('not-the-session-password'));
      req.addFingerprint();
      probe.send(req.bytes, port, '127.0.0.1');
    }
    await waitFor(
      () => engine.stats().net!.dropped >= before.dropped + 3,
      5000,
      `3 drops: ${JSON.stringify(engine.stats().net)}`,
    );
    // dropped, not answered late
    await holdsFor(() => answered.length === 0, 300, 'no answer to the forged checks');
    probe.close();
    expect(engine.stats().net!.links).toBe(before.links);
    // the listeners kept hearing the station
    expect(engine.listenerCount(station)).toBe(N);
  }, 120_000);
});
