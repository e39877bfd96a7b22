/** `radio-broadcaster broadcast`: publishes a tone or a file to a station over WHIP. */
import { ApiClient } from '../api.js';
import { type BroadcastArgs } from '../args.js';
import { nowMs } from '../clock.js';
import { PacketRecorder } from '../record.js';
import { openFileSource, type OpusSource, ToneSource } from '../sources.js';
import { round } from '../stats.js';
import { WhipPublisher } from '../whip.js';
import { type CliIO, ms, progress, resolveStation } from './io.js';

export async function broadcast(
  args: BroadcastArgs,
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
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
