import { describe, expect, it } from '@jest/globals';
import { normalizeTheme, parseAutoplay, parseStationRef, stationPageUrl } from './attributes.js';

describe('parseStationRef', () => {
  it('parses username/station-slug', () => {
    expect(parseStationRef('alice/night-radio')).toEqual({
      username: 'alice',
      slug: 'night-radio',
    });
  });

  it('ignores surrounding spaces and slashes and lowercases', () => {
    expect(parseStationRef('  /Alice/Night-Radio/ ')).toEqual({
      username: 'alice',
      slug: 'night-radio',
    });
  });

  it('accepts underscores and digits', () => {
    expect(parseStationRef('dj_2000/mix-01')).toEqual({ username: 'dj_2000', slug: 'mix-01' });
  });

  it.each([
    [null],
    [undefined],
    [''],
    ['alice'],
    ['alice/'],
    ['/night-radio'],
    ['alice/night/radio'],
    ['alice night/radio'],
    ['alice/night radio'],
    ['-alice/radio'],
    ['alice/radio-'],
    ['alice/ra?dio'],
    ['../etc/passwd'],
    ['https://example.com/alice/radio'],
    [`a/${'x'.repeat(65)}`],
  ])('rejects %p', (value) => {
    expect(parseStationRef(value)).toBeNull();
  });
});

describe('normalizeTheme', () => {
  it('keeps light', () => {
    expect(normalizeTheme('light')).toBe('light');
    expect(normalizeTheme(' LIGHT ')).toBe('light');
  });

  it.each([['dark'], [null], [undefined], [''], ['blue'], ['lite']])('turns %p into dark', (v) => {
    expect(normalizeTheme(v)).toBe('dark');
  });
});

describe('parseAutoplay', () => {
  it('is off by default and for false-like values', () => {
    for (const v of [null, undefined, 'false', 'FALSE', '0', 'no', 'off']) {
      expect(parseAutoplay(v)).toBe(false);
    }
  });

  it('is on for true and for the bare attribute', () => {
    for (const v of ['true', '', 'autoplay', '1']) expect(parseAutoplay(v)).toBe(true);
  });
});

describe('stationPageUrl', () => {
  it('links to {base}/{username}/{slug}', () => {
    expect(
      stationPageUrl('https://radio.example/', { username: 'alice', slug: 'night-radio' }),
    ).toBe('https://radio.example/alice/night-radio');
  });
});
