import { describe, expect, it } from '@jest/globals';
import { frameAncestorSources, hostAllowed, normalizeDomain, originHost } from './domain-rules.js';

describe('normalizeDomain', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['https://www.example.com:8443/path?q=1#x', 'www.example.com'],
    ['example.com.', 'example.com'],
    ['*.Example.com', '*.example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['http://localhost:5173', 'localhost'],
    ['bbc.co.uk', 'bbc.co.uk'],
    ['*.example.co.uk', '*.example.co.uk'],
    ['alice.github.io', 'alice.github.io'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normalizeDomain(input)).toEqual({ ok: true, domain: expected });
  });

  it.each([
    ['', 'empty'],
    ['not a domain', 'spaces'],
    ['exa*mple.com', 'wildcard'],
    ['*.com', 'needs a domain'],
    ['192.168.1.1', 'IP addresses'],
    ['-bad.com', 'not a valid hostname'],
    ['user@example.com', '"@"'],
    ['com', 'needs a dot'],
    ['a'.repeat(64) + '.com', 'not a valid hostname'],
    ['*.co.uk', 'public suffix'],
    ['co.uk', 'public suffix'],
    ['https://CO.UK:8080/x', 'public suffix'],
    ['*.github.io', 'public suffix'],
    ['blogspot.com', 'public suffix'],
    ['*.s3.amazonaws.com', 'public suffix'],
  ])('refuses %j saying why', (input, why) => {
    const r = normalizeDomain(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(why);
  });
});

describe('hostAllowed', () => {
  it('matches exact hosts and label-aligned wildcards only', () => {
    expect(hostAllowed('example.com', ['example.com'])).toBe(true);
    expect(hostAllowed('evil-example.com', ['example.com'])).toBe(false);
    expect(hostAllowed('evil-example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('www.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('example.com.evil.net', ['example.com'])).toBe(false);
  });

  it('reads the host of an Origin header', () => {
    expect(originHost('https://www.Example.com:8443')).toBe('www.example.com');
    expect(originHost('null')).toBeNull();
    expect(originHost('file://x')).toBeNull();
  });
  it('gives the embed page frame-ancestors that match the same hosts on any port', () => {
    expect(frameAncestorSources(['localhost', '*.example.com'])).toEqual([
      'https://localhost:*',
      'http://localhost:*',
      'https://*.example.com:*',
      'http://*.example.com:*',
    ]);
  });
});
