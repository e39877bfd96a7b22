import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addOpusNack, deleteSdpSession, postSdpOffer, setOpusParams } from './whip-client.js';

/** A WHIP endpoint on loopback that records what it was sent and answers as the API does. */
let server: Server;
let base = '';
const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] =
  [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.method === 'POST' && req.url === '/whip/st1') {
        res.writeHead(201, {
          'Content-Type': 'application/sdp',
          Location: '/whip/st1/sessions/abc',
          ETag: '"v1"',
          Link: [
            '<stun:stun.example:3478>; rel="ice-server"',
            '<turn:turn.example:3478?transport=udp>; rel="ice-server"; username="u"; credential="p;w"',
            '<https://example/docs>; rel="help"',
          ].join(', '),
        });
        return void res.end('v=0\r\nanswer');
      }
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end('{"error":"FORBIDDEN"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the WHIP/WHEP client', () => {
  it('POSTs the offer with the token and reads answer, absolute Location, ETag and ICE servers', async () => {
    const res = await postSdpOffer(`${base}/whip/st1`, 'v=0\r\noffer', { token: 'tok' });
    const req = seen.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', url: '/whip/st1', body: 'v=0\r\noffer' });
    expect(req.headers['content-type']).toBe('application/sdp');
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(res).toEqual({
      status: 201,
      answer: 'v=0\r\nanswer',
      location: `${base}/whip/st1/sessions/abc`,
      etag: '"v1"',
      iceServers: [
        { urls: 'stun:stun.example:3478' },
        { urls: 'turn:turn.example:3478?transport=udp', username: 'u', credential: 'p;w' },
      ],
    });
  });

  it("goes through the caller's fetch, so failures are the caller's errors", async () => {
    class MyError extends Error {}
    const send = async (url: string, init: RequestInit) => {
      const r = await fetch(url, init);
      if (!r.ok) throw new MyError(`${r.status} ${await r.text()}`);
      return r;
    };
    await expect(postSdpOffer(`${base}/whip/other`, 'v=0', { send })).rejects.toThrow(
      new MyError('403 {"error":"FORBIDDEN"}'),
    );
  });

  it('DELETEs a session with the token', async () => {
    await deleteSdpSession(`${base}/whip/st1/sessions/abc`, { token: 'tok' });
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/whip/st1/sessions/abc' });
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer tok');
  });
});

describe('setOpusParams', () => {
  const offer = [
    'v=0',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 63',
    'a=rtpmap:111 opus/48000/2',
    'a=fmtp:111 minptime=10;useinbandfec=1;stereo=0',
    'a=rtpmap:63 red/48000/2',
    '',
  ].join('\r\n');

  it('sets values on the Opus fmtp line only, replacing or keeping what the offer says', () => {
    const out = setOpusParams(offer, { stereo: '1', maxaveragebitrate: '128000' });
    expect(out).toContain(
      'a=fmtp:111 minptime=10;useinbandfec=1;stereo=1;maxaveragebitrate=128000\r\n',
    );
    expect(out.split('\r\n')).toHaveLength(offer.split('\r\n').length);
    expect(setOpusParams(offer, { stereo: '1' }, { replace: false })).toBe(offer);
  });

  it('adds the fmtp line when the offer has none, and leaves an offer without Opus alone', () => {
    const bare = offer.replace('a=fmtp:111 minptime=10;useinbandfec=1;stereo=0\r\n', '');
    expect(setOpusParams(bare, { stereo: '1' })).toContain(
      'a=rtpmap:111 opus/48000/2\r\na=fmtp:111 stereo=1\r\n',
    );
    expect(setOpusParams('v=0\r\n', { stereo: '1' })).toBe('v=0\r\n');
  });
});

describe('addOpusNack', () => {
  // Chromium's audio offer: Opus with transport-cc feedback, no NACK
  const offer = [
    'v=0',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 63',
    'a=rtpmap:111 opus/48000/2',
    'a=rtcp-fb:111 transport-cc',
    'a=fmtp:111 minptime=10;useinbandfec=1',
    'a=rtpmap:63 red/48000/2',
    '',
  ].join('\r\n');

  it("adds generic NACK feedback after Opus's own lines, for Opus only", () => {
    const out = addOpusNack(offer);
    expect(out).toContain(
      'a=fmtp:111 minptime=10;useinbandfec=1\r\na=rtcp-fb:111 nack\r\na=rtpmap:63 red/48000/2',
    );
    expect(out.match(/a=rtcp-fb:\d+ nack\r\n/g)).toEqual(['a=rtcp-fb:111 nack\r\n']);
  });

  it('keeps an offer that already asks for NACK (nack pli is another thing), or has no Opus', () => {
    const asks = addOpusNack(offer);
    expect(addOpusNack(asks)).toBe(asks);
    const pli = offer.replace('transport-cc', 'nack pli');
    expect(addOpusNack(pli)).toContain('a=rtcp-fb:111 nack pli\r\na=fmtp:111');
    expect(addOpusNack(pli)).toContain('a=rtcp-fb:111 nack\r\n');
    expect(addOpusNack('v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n')).toBe(
      'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n',
    );
  });
});
