import { describe, expect, test } from '@jest/globals';
import { SdpError } from './media-engine.js';
import { MAX_SDP_BYTES, mungeAnswer, validateOffer } from './sdp.js';

const base = (media: string, dir = 'a=sendonly') =>
  [
    'v=0',
    'o=- 1 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'a=fingerprint:sha-256 AA:BB',
    media,
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:abcd',
    'a=ice-pwd:abcdefghijklmnopqrstuvwx',
    'a=mid:0',
    dir,
    'a=rtpmap:111 opus/48000/2',
    'a=fmtp:111 minptime=10;useinbandfec=1',
  ].join('\r\n') + '\r\n';

describe('validateOffer', () => {
  test('accepts an Opus audio offer', () => {
    expect(validateOffer(base('m=audio 9 UDP/TLS/RTP/SAVPF 111'), 'publisher')).toContain(
      'opus/48000/2',
    );
  });
  test.each([
    ['not a string', 42, 'publisher'],
    ['empty', '', 'publisher'],
    ['garbage', 'hello world', 'publisher'],
    [
      'oversized',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111') + 'a=x:' + 'x'.repeat(MAX_SDP_BYTES),
      'publisher',
    ],
    ['video only', base('m=video 9 UDP/TLS/RTP/SAVPF 111'), 'publisher'],
    [
      'no opus',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 0').replace(
        'a=rtpmap:111 opus/48000/2',
        'a=rtpmap:0 PCMU/8000',
      ),
      'publisher',
    ],
    ['plain RTP', base('m=audio 9 RTP/AVP 111'), 'publisher'],
    [
      'publisher that does not send',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=recvonly'),
      'publisher',
    ],
    [
      'listener that does not receive',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=sendonly'),
      'listener',
    ],
    [
      'two audio sections',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111') +
        'm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:1\r\na=recvonly\r\na=rtpmap:111 opus/48000/2\r\n',
      'listener',
    ],
    [
      'hundreds of sections',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111') +
        Array.from(
          { length: 300 },
          (_, i) => `m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:v${i}\r\n`,
        ).join(''),
      'listener',
    ],
    [
      'no fingerprint',
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111').replace(/a=fingerprint.*\r\n/, ''),
      'listener',
    ],
  ])('rejects %s', (_name, sdp, role) => {
    expect(() => validateOffer(sdp, role as 'publisher' | 'listener')).toThrow(SdpError);
  });

  test('accepts one audio section beside one video and one data section (players that offer video)', () => {
    const offer =
      base('m=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=recvonly') +
      'm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n' +
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n';
    expect(validateOffer(offer, 'listener')).toContain('m=video');
  });
});

describe('mungeAnswer', () => {
  test('keeps stereo=1, raises maxaveragebitrate, adds an msid', () => {
    const out = mungeAnswer(base('m=audio 9 UDP/TLS/RTP/SAVPF 111'), 'stream1');
    expect(out).toMatch(/a=fmtp:111 .*stereo=1/);
    const rate = Number(/maxaveragebitrate=(\d+)/.exec(out)?.[1]);
    expect(rate).toBeGreaterThanOrEqual(128000);
    expect(out).toContain('a=msid:stream1 stream1-audio');
  });
});
