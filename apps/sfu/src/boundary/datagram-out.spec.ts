import { afterEach, describe, expect, it } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import { datagramOut } from './datagram-out.js';

const open: Socket[] = [];
async function udp(): Promise<Socket> {
  const s = createSocket('udp4');
  open.push(s);
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  return s;
}
function collect(s: Socket, n: number): Promise<Buffer[]> {
  const got: Buffer[] = [];
  return new Promise((resolve) =>
    s.on('message', (m: Buffer) => {
      got.push(m);
      if (got.length === n) resolve(got);
    }),
  );
}

afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

describe('datagramOut (the fan-out straight to the UDP handle)', () => {
  it('sends each datagram whole and in order on a connected socket, the buffer reusable at once', async () => {
    const rx = await udp();
    const tx = await udp();
    await new Promise<void>((r) => tx.connect(rx.address().port, '127.0.0.1', () => r()));
    const got = collect(rx, 200);
    const out = datagramOut(tx);
    const buf = Buffer.alloc(300);
    for (let i = 0; i < 200; i++) {
      buf.fill(i & 0xff);
      buf.writeUInt16BE(i, 0);
      // the kernel took it during the call: the same buffer carries the next one
      expect(out(buf.subarray(0, 20 + i))).toBe(true);
    }
    const messages = await got;
    messages.forEach((m, i) => {
      const body = m.subarray(2).every((b) => b === (i & 0xff));
      expect([i, m.length, m.readUInt16BE(0), body]).toEqual([i, 20 + i, i, true]);
    });
  });

  it('sends to an address and port from an unconnected socket', async () => {
    const rx = await udp();
    const tx = await udp();
    const got = collect(rx, 3);
    const out = datagramOut(tx, rx.address().port, '127.0.0.1');
    for (const text of ['one', 'two', 'three']) out(Buffer.from(text));
    expect((await got).map((m) => m.toString())).toEqual(['one', 'two', 'three']);
  });

  it('once the socket is closed, refuses as socket.send does (the shard counts a send error)', async () => {
    const tx = await udp();
    const rx = await udp();
    await new Promise<void>((r) => tx.connect(rx.address().port, '127.0.0.1', () => r()));
    const out = datagramOut(tx);
    open.splice(open.indexOf(tx), 1);
    await new Promise<void>((r) => tx.close(() => r()));
    expect(() => out(Buffer.from('late'))).toThrow(/Not running/);
  });
});
