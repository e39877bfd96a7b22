/**
 * Opus packets on the node protocol's streaming routes (packet publishers, taps): each packet is a
 * frame `u16 BE payload length, u16 BE samples (48 kHz; 0 when not known), payload`.
 */

/** Largest payload a frame may carry (an Opus packet is at most ~7.7 KB). */
export const MAX_FRAME_PAYLOAD = 16 * 1024;

export function encodeFrame(payload: Buffer, samples = 0): Buffer {
  if (payload.length > MAX_FRAME_PAYLOAD) throw new RangeError('packet too large for a frame');
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeUInt16BE(payload.length, 0);
  out.writeUInt16BE(Math.max(0, Math.min(0xffff, Math.round(samples))), 2);
  payload.copy(out, 4);
  return out;
}

export class FrameError extends Error {
  override name = 'FrameError';
}

/** Splits a byte stream into frames as its chunks arrive. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): { payload: Buffer; samples: number }[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: { payload: Buffer; samples: number }[] = [];
    let pos = 0;
    while (this.buf.length - pos >= 4) {
      const len = this.buf.readUInt16BE(pos);
      if (len > MAX_FRAME_PAYLOAD) throw new FrameError(`frame of ${len} bytes`);
      if (this.buf.length - pos < 4 + len) break;
      const samples = this.buf.readUInt16BE(pos + 2);
      out.push({ payload: Buffer.from(this.buf.subarray(pos + 4, pos + 4 + len)), samples });
      pos += 4 + len;
    }
    this.buf = pos === this.buf.length ? Buffer.alloc(0) : this.buf.subarray(pos);
    return out;
  }
}
