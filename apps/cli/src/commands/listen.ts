/** `radio-broadcaster listen`: one WHEP listener, its stats, and its latency from the publisher. */
import { ApiClient } from '../api.js';
import { type ListenArgs } from '../args.js';
import { nowMs, sleep } from '../clock.js';
import { PacketRecorder } from '../record.js';
import { type PacketRecord, round, sha1Hex } from '../stats.js';
import { type ListenerStats, WhepListener } from '../whep.js';
import { type CliIO, ms, pct, progress, resolveStation } from './io.js';
import { latencySummary, readPublisherLog } from './latency.js';

export async function listen(args: ListenArgs, io: CliIO, signal: AbortSignal): Promise<number> {
  const api = new ApiClient(args.server);
  const log = progress(io);
  const wantLatency = args.publisherLog !== undefined;
  const received: PacketRecord[] = [];
  const recorder = args.record ? new PacketRecorder(args.record, args.recordHex) : undefined;
  try {
    let stationId: string | undefined;
    if (!args.whepUrl) {
      const station = await resolveStation(api, args.station!);
      stationId = station.id;
      io.stderr.write(
        `joining ${args.station} (${station.id}, ${station.status}, ${station.viewerCount} listening)\n`,
      );
    }
    const listener = new WhepListener({
      api,
      stationId,
      whepUrl: args.whepUrl,
      token: args.token,
      record:
        recorder || wantLatency
          ? (p) => {
              recorder?.write({
                seq: p.seq,
                timestamp: p.timestamp,
                t: p.receivedAt,
                payload: p.payload,
              });
              if (wantLatency)
                received.push({
                  seq: p.seq,
                  ts: p.timestamp,
                  t: p.receivedAt,
                  sha1: sha1Hex(p.payload),
                });
            }
          : undefined,
    });
    await listener.start();
    io.stderr.write(`connected in ${ms(listener.connectMs)}\n`);
    const deadline = args.durationMs === undefined ? Infinity : nowMs() + args.durationMs;
    let last = 0;
    let silentSince = nowMs();
    while (!signal.aborted && nowMs() < deadline && listener.state === 'connected') {
      await sleep(Math.min(1000, deadline - nowMs()), signal);
      const s = listener.stats;
      if (s.packetsReceived !== last) silentSince = nowMs();
      last = s.packetsReceived;
      const silent = nowMs() - silentSince;
      log.line(
        `${s.packetsReceived} packets · loss ${pct(s.lossPercent)} · jitter ${s.jitterMs.toFixed(1)} ms · first audio ${ms(s.firstPacketMs)}` +
          (silent > 3000 ? ` · no audio for ${Math.round(silent / 1000)} s` : ''),
      );
    }
    await listener.stop();
    log.done();
    const s = listener.stats;
    const latency = latencySummary(readPublisherLog(args.publisherLog), [received]);
    const summary = { command: 'listen', station: args.station, ...roundStats(s), ...latency };
    io.stderr.write(
      `${s.packetsReceived} packets, loss ${pct(s.lossPercent)}, jitter ${s.jitterMs.toFixed(1)} ms, ` +
        `first audio ${ms(s.firstPacketMs)}` +
        (latency
          ? `, latency p50 ${ms(latency.latencyMs.p50)} p95 ${ms(latency.latencyMs.p95)}`
          : '') +
        (s.error ? ` — ${s.error}` : '') +
        '\n',
    );
    if (args.json) io.stdout.write(JSON.stringify(summary) + '\n');
    return s.packetsReceived > 0 ? 0 : 1;
  } finally {
    await recorder?.close();
  }
}

function roundStats(s: ListenerStats) {
  return {
    ...s,
    lossPercent: round(s.lossPercent),
    jitterMs: round(s.jitterMs),
    joinMs: s.joinMs === undefined ? undefined : round(s.joinMs),
    connectMs: s.connectMs === undefined ? undefined : round(s.connectMs),
    firstPacketMs: s.firstPacketMs === undefined ? undefined : round(s.firstPacketMs),
  };
}
