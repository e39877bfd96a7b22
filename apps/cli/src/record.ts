/** NDJSON packet recorder: one line per packet {seq, ts, t, len, sha1[, hex]}. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { sha1Hex } from './stats.js';

export interface RecordLine {
  seq: number;
  timestamp: number;
  /** Send or receive time (ms, `nowMs()` clock). */
  t: number;
  payload: Buffer;
  index?: number;
}

export class PacketRecorder {
  private readonly out: WriteStream;
  private error?: Error;
  lines = 0;
  constructor(
    readonly path: string,
    private readonly hex = false,
  ) {
    this.out = createWriteStream(path, { flags: 'w' });
    this.out.on('error', (e) => (this.error = e));
  }
  write(r: RecordLine): void {
    const o: Record<string, unknown> = {};
    if (r.index !== undefined) o.i = r.index;
    o.seq = r.seq;
    o.ts = r.timestamp;
    o.t = Math.round(r.t * 1000) / 1000;
    o.len = r.payload.length;
    o.sha1 = sha1Hex(r.payload);
    if (this.hex) o.hex = r.payload.toString('hex');
    this.out.write(JSON.stringify(o) + '\n');
    this.lines++;
  }
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.out.end(() => (this.error ? reject(this.error) : resolve()));
    });
  }
}
