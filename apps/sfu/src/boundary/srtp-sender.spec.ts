import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { RtpPacket, SrtpSession } from 'werift';
import { HMAC_SHA1_PAD_ROOM, HmacSha1 } from '../werift/hmac-sha1.js';
import { extractSrtpKeys, OutgoingRtp, SrtpStreamSender } from './srtp-sender.js';

const PROFILES: [string, number][] = [
  ['AES_CM_128_HMAC_SHA1_80', 0x0001],
  ['AEAD_AES_128_GCM', 0x0007],
];

describe('HmacSha1', () => {
  it('matches node:crypto for every message length from 0 to 300 bytes and any tag length', () => {
    for (const keyLength of [20, 64, 1]) {
      const key = randomBytes(keyLength);
      const h = new HmacSha1(key);
      for (let len = 0; len <= 300; len++) {
        const msg = randomBytes(len);
        const out = Buffer.alloc(20);
        h.sign(msg, len, out, 0, 20);
        expect([keyLength, len, out.toString('hex')]).toEqual([
          keyLength,
          len,
          createHmac('sha1', key).update(msg).digest('hex'),
        ]);
      }
    }
  });

  it('signs in place with the padding written after the message, for every length from 0 to 300', () => {
    const key = randomBytes(20);
    const h = new HmacSha1(key);
    for (let len = 0; len <= 300; len++) {
      const buf = Buffer.concat([randomBytes(len), randomBytes(HMAC_SHA1_PAD_ROOM)]);
      const expected = createHmac('sha1', key).update(buf.subarray(0, len)).digest('hex');
      const out = Buffer.alloc(20);
      h.signPadded(buf, new DataView(buf.buffer, buf.byteOffset, buf.length), len, out, 0, 20);
      expect([len, out.toString('hex')]).toEqual([len, expected]);
    }
  });

  it('may write the tag over the tail of the message it signs', () => {
    const key = randomBytes(20);
    const buf = Buffer.concat([randomBytes(100), Buffer.alloc(6)]);
    const expected = createHmac('sha1', key).update(buf.subarray(0, 100)).digest().subarray(0, 10);
    new HmacSha1(key).sign(buf, 100, buf, 96, 10);
    expect(buf.subarray(96, 106).equals(expected)).toBe(true);
  });
});

describe.each(PROFILES)('SrtpStreamSender (%s)', (_name, profile) => {
  function pair() {
    const key = randomBytes(16);
    const salt = randomBytes(profile === 0x0007 ? 12 : 14);
    // Both ends hold the same master key both ways: what one encrypts, the other decrypts.
    const session = () =>
      new SrtpSession({
        profile,
        keys: {
          localMasterKey: key,
          localMasterSalt: salt,
          remoteMasterKey: key,
          remoteMasterSalt: salt,
        },
      });
    const tx = session();
    const rx = session();
    const keys = extractSrtpKeys({ srtp: tx });
    if (!keys) throw new Error('no keys');
    return { keys, rx };
  }

  it('produces packets a standard SRTP receiver decrypts: sizes up to 1200 B, gaps, a late packet, the 16-bit wrap', () => {
    const { keys, rx } = pair();
    const ssrc = 0x89abcdef;
    const sender = new SrtpStreamSender(keys, ssrc, 111);
    const sent: Buffer[] = [];
    const out = (b: Buffer) => sent.push(Buffer.from(b)) > 0;
    // 65500 → wraps past 65535; a gap of 40; one late packet; sizes cycling over 1..1200 bytes
    const seqs: number[] = [];
    for (let s = 65500; s < 65536 + 100; s++) seqs.push(s & 0xffff);
    seqs.push(140, 141, 180, 181, 179, 182);
    const payloads = seqs.map((_, i) => randomBytes(1 + ((i * 97) % 1200)));
    seqs.forEach((seq, i) => {
      const len = sender.send(out, new OutgoingRtp(seq, 1000 + i * 960, i % 7 === 0, payloads[i]!));
      expect(len).toBe(sent[i]!.length);
    });
    seqs.forEach((seq, i) => {
      const plain = RtpPacket.deSerialize(rx.decrypt(sent[i]!));
      expect([i, plain.header.sequenceNumber]).toEqual([i, seq]);
      expect(plain.header.ssrc).toBe(ssrc);
      expect(plain.header.payloadType).toBe(111);
      expect(plain.header.marker).toBe(i % 7 === 0);
      expect(plain.header.timestamp).toBe(1000 + i * 960);
      expect([i, plain.payload.equals(payloads[i]!)]).toEqual([i, true]);
    });
    expect(sender.packets).toBe(seqs.length);
  });

  it('never writes over a packet a socket still holds (a send libuv had to queue)', () => {
    const { keys, rx } = pair();
    // two listeners of one thread; the second socket's buffer is full, so each of its sends is queued
    const a = new SrtpStreamSender(keys, 1, 111);
    const b = new SrtpStreamSender(keys, 2, 111);
    const queued: Buffer[] = [];
    // held, not copied, like a queued send
    const full = (buf: Buffer) => queued.push(buf) < 0;
    const sink = () => true;
    const payloads = Array.from({ length: 20 }, () => randomBytes(160));
    payloads.forEach((p, i) => {
      b.send(full, new OutgoingRtp(i, i * 960, false, p));
      a.send(sink, new OutgoingRtp(i, i * 960, false, randomBytes(300)));
    });
    queued.forEach((packet, i) => {
      expect([i, RtpPacket.deSerialize(rx.decrypt(packet)).payload.equals(payloads[i]!)]).toEqual([
        i,
        true,
      ]);
    });
  });

  it('is refused by the receiver when a byte is altered in transit', () => {
    const { keys, rx } = pair();
    const sender = new SrtpStreamSender(keys, 1234, 111);
    let packet = Buffer.alloc(0);
    sender.send(
      (b) => (packet = Buffer.from(b)).length > 0,
      new OutgoingRtp(7, 0, false, randomBytes(160)),
    );
    packet[20]! ^= 1;
    expect(() => rx.decrypt(packet)).toThrow();
  });
});
