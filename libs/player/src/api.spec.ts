import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ApiError, PlayerApi, parseRetryAfter } from './api.js';
import { preferStereo } from './whep.js';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

function mockFetch(response: () => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  globalThis.fetch = jest.fn((url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return Promise.resolve(response());
  }) as typeof fetch;
  return calls;
}

describe('ApiError', () => {
  it("reads the tag and builds the site's message from a failed response", async () => {
    const body = JSON.stringify({ error: 'DOMAIN_NOT_ALLOWED', message: 'no' });
    const e = await ApiError.fromResponse(
      new Response(body, { status: 403, statusText: 'Forbidden' }),
    );
    expect(e.status).toBe(403);
    expect(e.tag).toBe('DOMAIN_NOT_ALLOWED');
    expect(e.message).toBe(`API call failed: 403 Forbidden - ${body}`);
  });

  it('copes with a non-JSON body and reads Retry-After', async () => {
    const e = await ApiError.fromResponse(
      new Response('slow down', {
        status: 429,
        statusText: 'Too Many Requests',
        headers: { 'Retry-After': '7' },
      }),
    );
    expect(e.tag).toBeUndefined();
    expect(e.retryAfterMs).toBe(7000);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('2')).toBe(2000);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('PlayerApi', () => {
  it('fetches a station by address, cross-origin and without cookies', async () => {
    const calls = mockFetch(() => Response.json({ id: 'x' }));
    await new PlayerApi('https://api.example/').getStation({
      username: 'alice',
      slug: 'night-radio',
    });
    expect(calls[0].url).toBe('https://api.example/api/users/alice/stations/night-radio');
    expect(calls[0].init).toMatchObject({ mode: 'cors', credentials: 'omit' });
  });

  it('fetches a station by id', async () => {
    const calls = mockFetch(() => Response.json({ id: 'x' }));
    await new PlayerApi('https://api.example').getStation({ id: 'abc' });
    expect(calls[0].url).toBe('https://api.example/api/stations/abc');
  });

  it('joins with a JSON body and resolves a relative WHEP URL against the API', async () => {
    const calls = mockFetch(() =>
      Response.json({
        stationId: 's',
        whepUrl: '/whep/s',
        token: 't',
        expiresAt: '',
        iceServers: [],
      }),
    );
    const join = await new PlayerApi('https://api.example').join('s');
    expect(calls[0].url).toBe('https://api.example/api/joinStationAsReceiver');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].init.body).toBe('{"stationId":"s"}');
    expect(join.whepUrl).toBe('https://api.example/whep/s');
  });

  it('turns a 409 into ApiError STATION_NOT_ACTIVE', async () => {
    mockFetch(() => Response.json({ error: 'STATION_NOT_ACTIVE', message: 'x' }, { status: 409 }));
    await expect(new PlayerApi('https://api.example').join('s')).rejects.toMatchObject({
      status: 409,
      tag: 'STATION_NOT_ACTIVE',
    });
  });

  it('turns a fetch failure into NETWORK_ERROR', async () => {
    globalThis.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    await expect(
      new PlayerApi('https://api.example').getStation({ id: 'a' }),
    ).rejects.toMatchObject({
      status: 0,
      tag: 'NETWORK_ERROR',
    });
  });
});

describe('preferStereo', () => {
  const offer = [
    'v=0',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 63',
    'a=rtpmap:111 opus/48000/2',
    'a=fmtp:111 minptime=10;useinbandfec=1',
    'a=rtpmap:63 red/48000/2',
    '',
  ].join('\r\n');

  it('adds stereo=1 to the Opus fmtp line and asks for retransmissions (NACK) of Opus only', () => {
    const out = preferStereo(offer);
    expect(out).toContain(
      'a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1;stereo=1\r\na=rtcp-fb:111 nack\r\n',
    );
    expect(out).not.toContain('a=rtcp-fb:63');
    expect(out.split('\r\n')).toHaveLength(offer.split('\r\n').length + 1);
  });

  it('leaves an offer that already says stereo and NACK, or has no Opus, unchanged', () => {
    const already = offer.replace(
      'useinbandfec=1',
      'useinbandfec=1;stereo=0\r\na=rtcp-fb:111 nack',
    );
    expect(preferStereo(already)).toBe(already);
    expect(preferStereo('v=0\r\n')).toBe('v=0\r\n');
  });
});
