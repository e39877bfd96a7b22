/** The node's two streaming routes: a packet publisher fed by a request body, and a station's tap. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MediaEngine, PacketPublisher } from '../media-engine.js';
import { encodeFrame, FrameReader } from '../protocol/packet-frames.js';

/** Feeds `pub` from the request body's frames; it ends when either side closes. */
export function feedPacketPublisher(
  stationId: string,
  pub: PacketPublisher,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
  res.write(`${JSON.stringify({ sessionId: pub.sessionId })}\n`);
  const reader = new FrameReader();
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    void pub.close();
  };
  req.on('data', (chunk: Buffer) => {
    try {
      for (const f of reader.push(chunk)) pub.push(f.payload, f.samples);
    } catch (err) {
      console.warn(`[sfu-node] packet publisher ${stationId}: ${(err as Error).message}`);
      stop();
    }
  });
  req.on('close', stop);
  res.on('close', stop);
  void pub.gone.then((reason) => {
    done = true;
    if (!res.writableEnded) res.end(`${JSON.stringify({ gone: reason })}\n`);
  });
}

/** The station's packets as frames, until the caller goes away. */
export function streamTap(
  engine: MediaEngine,
  stationId: string,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  res.flushHeaders();
  const off = engine.tap(stationId, (payload) => {
    // a reader that stopped reading is dropped rather than buffered without bound
    if (res.writableLength > 1024 * 1024) return void res.destroy();
    res.write(encodeFrame(payload));
  });
  res.on('close', off);
  req.resume();
}
