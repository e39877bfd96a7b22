import { describe, expect, it } from '@jest/globals';
import { nextShow, type ShowOccurrence, showCountdown } from './shows.js';

const at = (iso: string) => Date.parse(iso);

describe('next show', () => {
  it('counts down in minutes, hours and days', () => {
    const now = at('2027-10-17T15:47:00Z');
    expect(showCountdown('2027-10-17T18:00:00Z', now)).toBe('in 2 h 13 min');
    expect(showCountdown('2027-10-17T16:47:00Z', now)).toBe('in 1 h');
    expect(showCountdown('2027-10-17T15:52:00Z', now)).toBe('in 5 min');
    expect(showCountdown('2027-10-17T15:47:30Z', now)).toBe('in 1 min');
    expect(showCountdown('2027-10-20T19:47:00Z', now)).toBe('in 3 d 4 h');
    expect(showCountdown('2027-10-17T15:40:00Z', now)).toBe('now');
  });

  it('is the first occurrence not gone live for and not over', () => {
    const occ = (title: string, startsAt: string, endsAt: string, state: ShowOccurrence['state']) =>
      ({ showId: title, title, startsAt, endsAt, localDate: '', state, wentLiveAt: null }) as const;
    const list = [
      occ('Done', '2027-10-17T10:00:00Z', '2027-10-17T11:00:00Z', 'aired'),
      occ('Missed', '2027-10-17T12:00:00Z', '2027-10-17T13:00:00Z', 'missed'),
      occ('Starting', '2027-10-17T15:40:00Z', '2027-10-17T16:40:00Z', 'upcoming'),
      occ('Later', '2027-10-17T18:00:00Z', '2027-10-17T19:00:00Z', 'upcoming'),
    ];
    expect(nextShow(list, at('2027-10-17T15:47:00Z'))?.title).toBe('Starting');
    expect(nextShow(list, at('2027-10-17T16:50:00Z'))?.title).toBe('Later');
    expect(nextShow(list, at('2027-10-17T19:00:00Z'))).toBeNull();
  });
});
