import { describe, expect, it } from '@jest/globals';
import { occurrenceCount, occurrences, type ShowTiming, zonedInstant } from './show-recurrence.js';

const iso = (t: number) => new Date(t).toISOString();
const wall = (s: string) => Date.parse(`${s}Z`);

describe('show recurrence', () => {
  it('a weekly Sunday show keeps 20:00 in Berlin across the last Sunday of October', () => {
    const show: ShowTiming = {
      startsAt: new Date('2027-10-17T18:00:00Z'), // 20:00 CEST
      durationMinutes: 60,
      timeZone: 'Europe/Berlin',
      repeat: { weekdays: ['SU'] },
    };
    const got = occurrences(
      show,
      Date.parse('2027-10-01T00:00Z'),
      Date.parse('2027-11-15T00:00Z'),
      10,
    );
    expect(got.map((o) => iso(o.start))).toEqual([
      '2027-10-17T18:00:00.000Z',
      '2027-10-24T18:00:00.000Z',
      '2027-10-31T19:00:00.000Z', // the change is that morning: 20:00 CET
      '2027-11-07T19:00:00.000Z',
      '2027-11-14T19:00:00.000Z',
    ]);
    expect(got.map((o) => o.localDate)).toEqual([
      '2027-10-17',
      '2027-10-24',
      '2027-10-31',
      '2027-11-07',
      '2027-11-14',
    ]);
  });

  it('keeps the local time across the spring change in New York too, and skips exceptions', () => {
    const show: ShowTiming = {
      startsAt: new Date('2027-03-06T23:30:00Z'), // Saturday 18:30 EST
      durationMinutes: 90,
      timeZone: 'America/New_York',
      repeat: { weekdays: ['SA', 'SU'], except: ['2027-03-13'] },
    };
    const got = occurrences(show, 0, Date.parse('2027-03-16T00:00Z'), 10);
    expect(got.map((o) => iso(o.start))).toEqual([
      '2027-03-06T23:30:00.000Z',
      '2027-03-07T23:30:00.000Z',
      // Saturday the 13th is an exception; Sunday the 14th is EDT.
      '2027-03-14T22:30:00.000Z',
    ]);
  });

  it('count and until end a repeat; the window and the limit bound the expansion', () => {
    const base = {
      startsAt: new Date('2027-01-04T09:00:00Z'),
      durationMinutes: 30,
      timeZone: 'UTC',
    };
    const daily: ShowTiming = {
      ...base,
      repeat: { weekdays: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] },
    };
    expect(occurrenceCount(daily, 1000)).toBe(Infinity);
    expect(occurrenceCount({ ...base, repeat: { weekdays: ['MO'], count: 10_000 } }, 1000)).toBe(
      1001,
    );
    expect(
      occurrenceCount(
        { ...base, repeat: { weekdays: ['MO'], until: '2027-02-01T09:00:00Z' } },
        1000,
      ),
    ).toBe(5);
    const window = occurrences(
      daily,
      Date.parse('2027-02-01T00:00Z'),
      Date.parse('2027-02-04T00:00Z'),
      100,
    );
    expect(window.map((o) => o.localDate)).toEqual(['2027-02-01', '2027-02-02', '2027-02-03']);
    // One more than the limit says "there are more".
    expect(occurrences(daily, 0, Date.parse('2030-01-01T00:00Z'), 5)).toHaveLength(6);
  });

  it('a wall time in an autumn repeat is the first of the two; one in a spring gap moves after it', () => {
    expect(iso(zonedInstant('Europe/Berlin', wall('2027-10-31T02:30:00')))).toBe(
      '2027-10-31T00:30:00.000Z',
    );
    expect(iso(zonedInstant('Europe/Berlin', wall('2027-03-28T02:30:00')))).toBe(
      '2027-03-28T01:30:00.000Z',
    );
    expect(iso(zonedInstant('Asia/Kolkata', wall('2027-06-01T09:00:00')))).toBe(
      '2027-06-01T03:30:00.000Z',
    );
  });
});
