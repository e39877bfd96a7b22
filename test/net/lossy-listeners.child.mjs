/**
 * Listeners for test/net/lossy-joins.test.ts, run inside the listeners' network namespace: the CLI's
 * werift peer (apps/cli/dist/peer.js, with the SFU's werift patches), `count` of them, `atOnce` at a
 * time. Talks JSON lines: prints {i, offer}, reads {i, answer}, prints {i, result} once listener i
 * has connected and received audio ('audio'), or has failed or given up ('failed: why').
 * argv: count atOnce giveUpMs
 */
import { createInterface } from 'node:readline';
import { createCompleteOffer, createPeer } from '../../apps/cli/dist/peer.js';

const [count, atOnce, giveUpMs] = process.argv.slice(2).map(Number);
const answers = new Map();
createInterface({ input: process.stdin }).on('line', (line) => {
  const { i, answer } = JSON.parse(line);
  answers.get(i)?.(answer);
});
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

async function listen(i) {
  const pc = createPeer({ iceAdditionalHostAddresses: [] });
  const t = pc.addTransceiver('audio', { direction: 'recvonly' });
  try {
    const result = new Promise((resolve) => {
      const timer = setTimeout(
        () => resolve(`failed: ${pc.connectionState} after ${giveUpMs} ms`),
        giveUpMs,
      );
      pc.connectionStateChange.subscribe((s) => {
        if (s === 'failed' || s === 'closed') resolve(`failed: connection ${s}`);
      });
      t.onTrack.subscribe((track) =>
        track.onReceiveRtp.subscribe(() => {
          clearTimeout(timer);
          resolve('audio');
        }),
      );
    });
    const answer = new Promise((resolve) => answers.set(i, resolve));
    say({ i, offer: await createCompleteOffer(pc) });
    await pc.setRemoteDescription({ type: 'answer', sdp: await answer });
    say({ i, result: await result });
  } catch (err) {
    say({ i, result: `failed: ${err?.message ?? err}` });
  } finally {
    await pc.close().catch(() => undefined);
  }
}

let next = 0;
await Promise.all(
  Array.from({ length: atOnce }, async () => {
    while (next < count) await listen(next++);
  }),
);
process.exit(0);
