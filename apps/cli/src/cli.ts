/** The `radio-broadcaster` commands. `runCli` returns the exit code; main.ts calls it. */
import { readFileSync } from 'node:fs';
import type { Station } from '@radiobroadcaster/contracts';
import { ApiClient, ApiError, NetworkError } from './api.js';
import {
  CLI_VERSION,
  EXIT,
  USAGE,
  UsageError,
  parseCli,
  type BroadcastArgs,
  type ListenArgs,
  type LoadArgs,
} from './args.js';
import { nowMs, sleep } from './clock.js';
import { PacketRecorder } from './record.js';
import {
  matchPackets,
  parsePacketLog,
  round,
  sha1Hex,
  summarize,
  type PacketRecord,
} from './stats.js';
import { ToneSource, openFileSource, type OpusSource } from './sources.js';
import { WhepListener, type ListenerStats } from './whep.js';
import { WhipPublisher } from './whip.js';

export interface CliIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Install SIGINT/SIGTERM handlers (the binary does; tests don't). */
  handleSignals?: boolean;
  /** Aborting this stops a running command as SIGINT would. */
  signal?: AbortSignal;
}

const defaultIO = (): CliIO => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  handleSignals: true,
});

/** Runs a command line (argv without node and script); resolves with the exit code. */
export async function runCli(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  let args;
  try {
    args = parseCli(argv, io.env);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(
        `radio-broadcaster: ${e.message}\nRun "radio-broadcaster --help" for usage.\n`,
      );
      return EXIT.usage;
    }
    throw e;
  }
  if (args.command === 'help') {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.command === 'version') {
    io.stdout.write(`radio-broadcaster ${CLI_VERSION}\n`);
    return EXIT.ok;
  }
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) {
      io.stderr.write('\nforced exit\n');
      process.exit(EXIT.interrupted);
    }
    io.stderr.write('\nstopping…\n');
    stop.abort();
  };
  if (io.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  try {
    if (args.command === 'broadcast') return await broadcast(args, io, stop.signal);
    if (args.command === 'listen') return await listen(args, io, stop.signal);
    return await load(args, io, stop.signal);
  } catch (e) {
    io.stderr.write(
      `radio-broadcaster: ${describeError(e, 'station' in args ? args.station : undefined)}\n`,
    );
    return EXIT.failed;
  } finally {
    if (io.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

/** A one-line, user-facing explanation of an error. */
export function describeError(e: unknown, station?: string): string {
  const where = station ? `station "${station}"` : 'station';
  if (e instanceof ApiError) {
    if (e.tag === 'StationNotFoundError') return `${where} not found (404 StationNotFoundError)`;
    if (e.tag === 'STATION_NOT_ACTIVE')
      return `${where} is not live right now (409 STATION_NOT_ACTIVE)`;
    if (e.status === 401)
      return `authentication failed: ${e.message} (401${e.tag ? ` ${e.tag}` : ''})`;
    if (e.status === 403) return `not allowed: ${e.message} (403${e.tag ? ` ${e.tag}` : ''})`;
    if (e.status === 409 && /\/whip\//.test(e.url))
      return `${where} already has a live publisher: ${e.message} (409)`;
    if (e.status === 429) return `rate limited by the server: ${e.message} (429)`;
    return `${e.url} answered ${e.status}${e.tag ? ` ${e.tag}` : ''}: ${e.message}`;
  }
  if (e instanceof NetworkError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

const ms = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);
const pct = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(2)}%`);

function progress(io: CliIO) {
  const tty = io.stderr.isTTY === true;
  return {
    line(s: string) {
      io.stderr.write(tty ? `\r\x1b[2K${s}` : `${s}\n`);
    },
    done() {
      if (tty) io.stderr.write('\n');
    },
  };
}

async function resolveStation(api: ApiClient, address: string): Promise<Station> {
  return api.getStationByAddress(address);
}

// ---------------------------------------------------------------- broadcast

async function broadcast(args: BroadcastArgs, io: CliIO, signal: AbortSignal): Promise<number> {
  const api = new ApiClient(args.server);
  const log = progress(io);
  let source: OpusSource | undefined;
  let recorder: PacketRecorder | undefined;
  try {
    source = args.file
      ? openFileSource(args.file, { loop: args.loop })
      : new ToneSource({ frequency: args.tone, amplitude: args.amplitude, stereo: !args.mono });
  } catch (e) {
    throw new Error(`cannot open ${args.file ?? 'tone'}: ${(e as Error).message}`);
  }
  try {
    const station = await resolveStation(api, args.station);
    let token = args.token;
    let refreshToken: (() => Promise<string>) | undefined;
    if (!token) {
      const who = await api.signIn(args.email!, args.password!);
      io.stderr.write(`signed in as ${who.user.username}\n`);
      refreshToken = async () => (await api.refreshStationToken(station.id)).token;
      token = await refreshToken();
    }
    if (args.record) recorder = new PacketRecorder(args.record, args.recordHex);
    const rec = recorder;
    io.stderr.write(
      `publishing ${source.description} to ${args.station} (${station.id}) via ${api.whipUrl(station.id)}\n`,
    );
    const pub = new WhipPublisher({
      whipUrl: api.whipUrl(station.id),
      token,
      refreshToken,
      source,
      durationMs: args.durationMs,
      record: rec
        ? (p) =>
            rec.write({
              index: p.index,
              seq: p.seq,
              timestamp: p.timestamp,
              t: p.sentAt,
              payload: p.payload,
            })
        : undefined,
      onState: (s, detail) => {
        if (s === 'connecting' || s === 'failed')
          io.stderr.write(`${s}${detail ? `: ${detail}` : ''}\n`);
      },
    });
    const started = nowMs();
    await pub.start();
    io.stderr.write(`live (connected in ${ms(pub.connectMs)})\n`);
    let listeners: number | undefined;
    let stationStatus: string = station.status;
    const refresh = () =>
      api
        .getStationByAddress(args.station)
        .then((s) => {
          listeners = s.viewerCount;
          stationStatus = s.status;
        })
        .catch(() => undefined);
    void refresh();
    const poll = setInterval(refresh, 2000);
    const show = setInterval(() => {
      const secs = Math.round((nowMs() - started) / 1000);
      log.line(
        `${pub.state === 'connected' ? 'live' : pub.state} · ${secs}s · ${pub.packetsSent} packets sent · ` +
          `station ${stationStatus} · ${listeners ?? '?'} listener${listeners === 1 ? '' : 's'}`,
      );
    }, 2000);
    const onAbort = () => void pub.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    await pub.finished();
    clearInterval(poll);
    clearInterval(show);
    signal.removeEventListener('abort', onAbort);
    const failed = pub.state === 'failed';
    await pub.stop();
    log.done();
    const stats = pub.stats;
    const summary = {
      command: 'broadcast',
      station: args.station,
      stationId: station.id,
      state: failed ? 'failed' : 'stopped',
      packetsSent: stats.packetsSent,
      bytesSent: stats.bytesSent,
      connectMs: stats.connectMs === undefined ? undefined : round(stats.connectMs),
      durationS: round((nowMs() - started) / 1000),
      lastListeners: listeners,
      error: stats.error,
    };
    io.stderr.write(
      `${failed ? 'failed' : 'stopped'}: ${stats.packetsSent} packets (${Math.round(stats.bytesSent / 1024)} KiB) in ${summary.durationS.toFixed(1)} s` +
        `${stats.error ? ` — ${stats.error}` : ''}\n`,
    );
    if (args.json) io.stdout.write(JSON.stringify(summary) + '\n');
    return failed ? 1 : 0;
  } finally {
    source.close();
    await recorder?.close();
  }
}

// ---------------------------------------------------------------- listen

function readPublisherLog(path: string | undefined): PacketRecord[] | undefined {
  if (!path) return undefined;
  try {
    return parsePacketLog(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read --publisher-log ${path}: ${(e as Error).message}`);
  }
}

function latencySummary(sent: PacketRecord[] | undefined, received: PacketRecord[][]) {
  if (!sent) return undefined;
  const all: number[] = [];
  let matched = 0;
  let mismatched = 0;
  let unknown = 0;
  for (const r of received) {
    const m = matchPackets(sent, r);
    for (const v of m.latencies) all.push(v);
    matched += m.matched;
    mismatched += m.mismatched;
    unknown += m.unknown;
  }
  return {
    latencyMs: summarize(all),
    payloadsMatched: matched,
    payloadsMismatched: mismatched,
    /** Received but not (yet) in the publisher's log. */
    payloadsNotInLog: unknown,
  };
}

async function listen(args: ListenArgs, io: CliIO, signal: AbortSignal): Promise<number> {
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
                received.push({ seq: p.seq, t: p.receivedAt, sha1: sha1Hex(p.payload) });
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

// ---------------------------------------------------------------- load

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

async function load(args: LoadArgs, io: CliIO, signal: AbortSignal): Promise<number> {
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
          ? (p) => rec.push({ seq: p.seq, t: p.receivedAt, sha1: sha1Hex(p.payload) })
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

function progressNewline(io: CliIO): string {
  return io.stderr.isTTY ? '\n' : '';
}
