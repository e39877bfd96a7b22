/**
 * Worker thread entry of {@link Mp3ToOpusWorker}: one MP3 source's decoding and Opus encoding,
 * off the thread that serves requests. Loaded from the compiled `dist/mp3-worker.js`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Mp3ToOpus, type Mp3ToOpusOptions } from './mp3.js';

if (!parentPort) throw new Error('mp3-worker must run in a worker thread');
const port = parentPort;
const converter = await Mp3ToOpus.create(workerData as Mp3ToOpusOptions);
let queue: Promise<void> = Promise.resolve();

port.on('message', (m: { id: number; chunk: Uint8Array }) => {
  queue = queue.then(async () => {
    try {
      const packets = await converter.push(m.chunk);
      port.postMessage({ id: m.id, packets });
    } catch (err) {
      port.postMessage({ id: m.id, error: (err as Error).message });
    }
  });
});
