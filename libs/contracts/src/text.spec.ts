import { describe, expect, it } from '@jest/globals';
import { CreateStationRequest, UpdateStationRequest } from './station.js';
import { hasHiddenCharacters } from './text.js';

const STATION = '00000000-0000-4000-8000-000000000000';

describe('invisible characters in station names and descriptions', () => {
  it.each([
    ['a zero-width space', 'Night\u200BOwls'],
    ['a soft hyphen', 'Night\u00ADOwls'],
    ['a word joiner', 'Night\u2060Owls'],
    ['a byte order mark', '\uFEFFNight Owls'],
    ['a left-to-right mark', 'Night\u200E Owls'],
    ['a zero-width joiner between Latin letters', 'Night\u200DOwls'],
    ['a zero-width non-joiner between Latin letters', 'Night\u200COwls'],
    ['a variation selector after a letter', 'Night\uFE0F Owls'],
    ['a supplementary variation selector', 'Night\u{E0100} Owls'],
    ['a tag character', 'Night\u{E0041} Owls'],
    ['a Hangul filler', 'Night\u3164Owls'],
    ['an Arabic letter mark', 'Night\u061COwls'],
  ])('finds %s', (_what, text) => {
    expect(hasHiddenCharacters(text)).toBe(true);
  });

  it.each([
    ['plain text', 'Night Owls'],
    ['an emoji with its presentation selector', '❤️ Radio'],
    ['a joined emoji family', '👨‍👩‍👧 Family hour'],
    ['a keycap', '1️⃣ Number one'],
    ['a skin tone', '👍🏽 Thumbs'],
    ['a subdivision flag (tags)', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scots'],
    ['Persian with a non-joiner', 'می‌خواهم'],
    ['Devanagari with a joiner', 'क्‍ष'],
  ])('leaves %s alone', (_what, text) => {
    expect(hasHiddenCharacters(text)).toBe(false);
  });

  it('is the rule of the station schemas the API and the studio share', () => {
    const name = CreateStationRequest.safeParse({ name: 'Night\u200BOwls' });
    expect(name.success).toBe(false);
    expect(name.error?.issues[0]?.message).toContain('invisible characters');
    expect(
      UpdateStationRequest.safeParse({ stationId: STATION, description: 'Hi\u2060 there' }).success,
    ).toBe(false);
    expect(CreateStationRequest.safeParse({ name: '❤️ Night Owls 👨‍👩‍👧' }).success).toBe(true);
  });
});
