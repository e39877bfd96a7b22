import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { iceServersFromLinks } from '@radiobroadcaster/contracts';
import { loadConfig } from '../config/config.js';
import { iceServerLinks, mintTurnCredentials } from './ice-servers.js';
import { IceServersService } from './ice-servers.service.js';

const SECRET = 'a-turn-secret-of-32-characters!!';
const env = (extra: Record<string, string>) =>
  ({ DATA_DIR: '/tmp/rb-turn-spec', AUTH_SECRET: 'x'.repeat(40), ...extra }) as NodeJS.ProcessEnv;

describe('TURN credentials (REST shared secret)', () => {
  const turn = {
    urls: ['turn:turn.example.com:3478', 'turns:turn.example.com:5349'],
    secret: SECRET,
    ttlSeconds: 600,
  };

  it('mints "{expiry}:{caller}" with password base64(HMAC-SHA1(secret, username))', () => {
    const now = Date.UTC(2026, 0, 1);
    const s = mintTurnCredentials(turn, 'l-abc123', now);
    expect(s.urls).toEqual(turn.urls);
    expect(s.username).toBe(`${now / 1000 + 600}:l-abc123`);
    expect(s.credential).toBe(createHmac('sha1', SECRET).update(s.username!).digest('base64'));
  });

  it('keeps the caller part to characters the relay logs safely', () => {
    const s = mintTurnCredentials(turn, 'a:b c"d', 0);
    expect(s.username).toBe('600:abcd');
  });

  it('writes RFC 9725 Link values, one per URL, with quoted credentials', () => {
    const links = iceServerLinks([
      { urls: 'stun:stun.example.com' },
      {
        urls: ['turn:t.example.com?transport=udp', 'turns:t.example.com:443'],
        username: '9:l-1',
        credential: 'p/q+r=',
      },
    ]);
    expect(links).toEqual([
      '<stun:stun.example.com>; rel="ice-server"',
      '<turn:t.example.com?transport=udp>; rel="ice-server"; username="9:l-1"; credential="p/q+r="; credential-type="password"',
      '<turns:t.example.com:443>; rel="ice-server"; username="9:l-1"; credential="p/q+r="; credential-type="password"',
    ]);
  });

  it('reads back the ICE servers of Link values as fetch joins them, other links left out', () => {
    const servers = [
      { urls: 'stun:stun.example.com' },
      { urls: 'turn:t.example.com?transport=tcp', username: '9:l-1', credential: 'p/q+r=;"x\\' },
    ];
    expect(iceServersFromLinks(iceServerLinks(servers).join(', '))).toEqual(servers);
    expect(
      iceServersFromLinks(
        '</whep/x/sse>; rel="urn:ietf:params:whep:ext:core:server-sent-events"; events="active", ' +
          '<https://example.com/>; rel="ice-server", ' +
          '<TURN:t.example.com:3478>;REL=ice-server;username=u;credential=c2VjcmV0==',
      ),
    ).toEqual([{ urls: 'TURN:t.example.com:3478', username: 'u', credential: 'c2VjcmV0==' }]);
    expect(iceServersFromLinks(null)).toEqual([]);
  });

  it('gives each caller its own credentials next to the static ICE servers', () => {
    const config = loadConfig(
      env({
        ICE_SERVERS: '[{"urls":"stun:stun.example.com:3478"}]',
        TURN_URLS:
          'turn:turn.example.com:3478?transport=udp, turn:turn.example.com:3478?transport=tcp',
        TURN_SECRET: SECRET,
        TURN_TTL_SECONDS: '3600',
      }),
    );
    const service = new IceServersService(config);
    const a = service.forCaller('listener');
    const b = service.forCaller('listener');
    expect(a[0]).toEqual({ urls: 'stun:stun.example.com:3478' });
    expect(a[1]!.urls).toEqual([
      'turn:turn.example.com:3478?transport=udp',
      'turn:turn.example.com:3478?transport=tcp',
    ]);
    expect(a[1]!.username).not.toBe(b[1]!.username);
    const expiry = Number(a[1]!.username!.split(':')[0]);
    expect(expiry - Date.now() / 1000).toBeGreaterThan(3590);
    expect(expiry - Date.now() / 1000).toBeLessThanOrEqual(3600);
    expect(service.links(a)).toHaveLength(3);
  });

  it('by default, credentials live 10 minutes (TURN_TTL_SECONDS=600)', () => {
    const config = loadConfig(env({ TURN_URLS: 'turn:turn.example.com', TURN_SECRET: SECRET }));
    expect(config.rtc.turn!.ttlSeconds).toBe(600);
    const [relay] = new IceServersService(config).forCaller('listener');
    const left = Number(relay!.username!.split(':')[0]) - Date.now() / 1000;
    expect(left).toBeGreaterThan(590);
    expect(left).toBeLessThanOrEqual(600);
  });

  it('without TURN configured, callers get the static servers only', () => {
    const service = new IceServersService(loadConfig(env({})));
    expect(service.hasTurn).toBe(false);
    expect(service.forCaller('publisher')).toEqual([]);
  });

  it('refuses a TURN configuration it cannot use', () => {
    expect(() =>
      loadConfig(env({ TURN_URLS: 'http://turn.example.com', TURN_SECRET: SECRET })),
    ).toThrow(/TURN_URLS: not a turn:\/turns: URL: http:\/\/turn\.example\.com/);
    expect(() => loadConfig(env({ TURN_URLS: 'turn:turn.example.com' }))).toThrow(
      /TURN_SECRET: at least 16/,
    );
    expect(() => loadConfig(env({ TURN_SECRET: SECRET }))).toThrow(
      /TURN_URLS: needed with TURN_SECRET/,
    );
    expect(() =>
      loadConfig(
        env({ TURN_URLS: 'turn:t.example.com', TURN_SECRET: SECRET, TURN_TTL_SECONDS: '5' }),
      ),
    ).toThrow(/TURN_TTL_SECONDS/);
  });
});
