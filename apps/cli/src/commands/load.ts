/** `radio-broadcaster load`: many WHEP listeners ramped up, held, and summed up. */
import { ApiClient } from '../api.js';
import { type LoadArgs } from '../args.js';
import { nowMs, sleep } from '../clock.js';
import { type PacketRecord, round, sha1Hex, summarize } from '../stats.js';
import { WhepListener } from '../whep.js';
import { type CliIO, pct, progress, progressNewline, resolveStation } from './io.js';
import { describeError } from './describe-error.js';
import { latencySummary, readPublisherLog } from './latency.js';

export interface LoadSummary {
  command: 'load';
  station: string;
  requested: number;
  connected: number;
  failed: number;
  errors: Record<string, number>;
  /** The most listeners connected at once. */
  peakConnected: number;
  rampS: number;
  holdS: number;
  packetsPerListener: ReturnType<typeof summarize>;
  lossPercent: ReturnType<typeof summarize>;
  firstAudioMs: ReturnType<typeof summarize>;
  /** Every connected listener's join → first audio (ms), for percentiles over several runs. */
  firstAudioSamples: number[];
  connectMs: ReturnType<typeof summarize>;
  jitterMs: ReturnType<typeof summarize>;
  /** Listeners that connected but never got a packet. */
  silent: number;
  /** All listeners together: packets expected, missing at the end, asked for again (NACK), recovered. */
  recovery: {
    expected: number;
    lost: number;
    nacked: number;
    recovered: number;
    recoveredLate: number;
    duplicates: number;
  };
  latency?: ReturnType<typeof latencySummary>;
}

export async function load(args: LoadArgs, io: CliIO, signal: AbortSignal): Promise<number> {
  const api = new ApiClient(args.server);
  const log = progress(io);
  const station = await resolveStation(api, args.station);
  const wantLatency = args.publisherLog !== undefined;
  io.stderr.write(
    `load: ${args.listeners} listeners on ${args.station} (${station.id}, ${station.status}), ` +
      `${args.ramp}/s, ${args.concurrency} in flight, hold ${args.durationMs / 1000} s\n`,
  );
  const listeners: WhepListener[] = [];
  const received: PacketRecord[][] = [];
  const errors: Record<string, number> = {};
  let inFlight = 0;
  let failed = 0;
  let peak = 0;
  const t0 = nowMs();
  const connectedCount = () => listeners.filter((l) => l.state === 'connected').length;

  const ticker = setInterval(() => {
    const c = connectedCount();
    peak = Math.max(peak, c);
    let packets = 0;
    let lossSum = 0;
    for (const l of listeners) {
      packets += l.packetsReceived;
      lossSum += l.stats.lossPercent;
    }
    const withAudio = listeners.filter((l) => l.firstPacketMs !== undefined).length;
    log.line(
      `[${Math.round((nowMs() - t0) / 1000)}s] connected ${c}/${args.listeners} · failed ${failed} · joining ${inFlight} · ` +
        `with audio ${withAudio} · packets ${packets} · mean loss ${pct(listeners.length ? lossSum / listeners.length : 0)}`,
    );
  }, 1000);

  const starts: Promise<void>[] = [];
  const waiters: (() => void)[] = [];
  const interval = 1000 / args.ramp;
  try {
    for (let i = 0; i < args.listeners && !signal.aborted; i++) {
      const due = t0 + i * interval;
      if (due > nowMs()) await sleep(due - nowMs(), signal);
      while (inFlight >= args.concurrency && !signal.aborted)
        await new Promise<void>((r) => waiters.push(r));
      if (signal.aborted) break;
      const rec: PacketRecord[] = [];
      const l = new WhepListener({
        api,
        stationId: station.id,
        record: wantLatency
          ? (p) =>
              rec.push({
                seq: p.seq,
                ts: p.timestamp,
                t: p.receivedAt,
                sha1: sha1Hex(p.payload),
              })
          : undefined,
      });
      listeners.push(l);
      received.push(rec);
      inFlight++;
      starts.push(
        l
          .start()
          .catch((e: unknown) => {
            failed++;
            const key = describeError(e, args.station)
              .replace(/[0-9a-f-]{36}/g, '…')
              .slice(0, 240);
            errors[key] = (errors[key] ?? 0) + 1;
          })
          .finally(() => {
            inFlight--;
            waiters.shift()?.();
          }),
      );
    }
    await Promise.all(starts);
    const rampS = (nowMs() - t0) / 1000;
    peak = Math.max(peak, connectedCount());
    io.stderr.write(
      `${progressNewline(io)}ramp done in ${rampS.toFixed(1)} s: ${connectedCount()} connected, ${failed} failed\n`,
    );
    const holdStart = nowMs();
    if (!signal.aborted) await sleep(args.durationMs, signal);
    const holdS = (nowMs() - holdStart) / 1000;
    clearInterval(ticker);
    peak = Math.max(peak, connectedCount());
    const stats = listeners.map((l) => l.stats);
    // Leave, a few at a time.
    for (let i = 0; i < listeners.length; i += 32)
      await Promise.all(listeners.slice(i, i + 32).map((l) => l.stop()));
    log.done();
    const ok = stats.filter((s) => s.connectMs !== undefined);
    const summary: LoadSummary = {
      command: 'load',
      station: args.station,
      requested: args.listeners,
      connected: ok.length,
      failed,
      errors,
      peakConnected: peak,
      rampS: round(rampS, 2),
      holdS: round(holdS, 2),
      packetsPerListener: summarize(ok.map((s) => s.packetsReceived)),
      lossPercent: summarize(ok.filter((s) => s.packetsExpected > 0).map((s) => s.lossPercent)),
      firstAudioMs: summarize(
        ok.flatMap((s) => (s.firstPacketMs === undefined ? [] : [s.firstPacketMs])),
      ),
      firstAudioSamples: ok.flatMap((s) =>
        s.firstPacketMs === undefined ? [] : [Math.round(s.firstPacketMs)],
      ),
      connectMs: summarize(ok.map((s) => s.connectMs!)),
      jitterMs: summarize(ok.filter((s) => s.packetsReceived > 1).map((s) => s.jitterMs)),
      silent: ok.filter((s) => s.packetsReceived === 0).length,
      recovery: {
        expected: ok.reduce((a, s) => a + s.packetsExpected, 0),
        lost: ok.reduce((a, s) => a + s.packetsLost, 0),
        nacked: ok.reduce((a, s) => a + s.nacked, 0),
        recovered: ok.reduce((a, s) => a + s.recovered, 0),
        recoveredLate: ok.reduce((a, s) => a + s.recoveredLate, 0),
        duplicates: ok.reduce((a, s) => a + s.duplicates, 0),
      },
      // Read at the end: the broadcaster keeps appending to its record while we listen.
      latency: latencySummary(readPublisherLog(args.publisherLog), received),
    };
    const f = (s: ReturnType<typeof summarize>, unit: string) =>
      s.count === 0 ? '—' : `p50 ${s.p50}${unit} p95 ${s.p95}${unit} max ${s.max}${unit}`;
    io.stderr.write(
      [
        `connected ${summary.connected}/${summary.requested} (peak ${peak}), failed ${failed}, silent ${summary.silent}`,
        `packets per listener: min ${summary.packetsPerListener.min ?? '—'} p50 ${summary.packetsPerListener.p50 ?? '—'} max ${summary.packetsPerListener.max ?? '—'}`,
        `loss: ${f(summary.lossPercent, '%')}`,
        `first audio: ${f(summary.firstAudioMs, ' ms')}`,
        `connect: ${f(summary.connectMs, ' ms')}`,
        `jitter: ${f(summary.jitterMs, ' ms')}`,
        ...(summary.latency
          ? [
              `latency: ${f(summary.latency.latencyMs, ' ms')} (payloads matched ${summary.latency.payloadsMatched}, mismatched ${summary.latency.payloadsMismatched}, not in log ${summary.latency.payloadsNotInLog})`,
            ]
          : []),
        ...Object.entries(errors).map(([k, n]) => `error ×${n}: ${k}`),
      ].join('\n') + '\n',
    );
    if (args.json) io.stdout.write(JSON.stringify(summary) + '\n');
    return summary.connected > 0 ? 0 : 1;
  } finally {
    clearInterval(ticker);
    await Promise.allSettled(listeners.map((l) => l.stop()));
  }
}
