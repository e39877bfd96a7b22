import { describe, expect, it } from '@jest/globals';
import { fieldProblems, plainIssueMessage } from './messages.js';
import { SignUpRequest } from './auth.js';
import { CreateStationRequest } from './station.js';
import { stationPageDescription, stationPageTitle } from './page-title.js';

const problemsOf = (schema: { safeParse: typeof CreateStationRequest.safeParse }, v: unknown) => {
  const r = schema.safeParse(v, { error: plainIssueMessage });
  return r.success ? [] : fieldProblems(r.error);
};

describe('validation messages in plain words', () => {
  it('says what to do for too long, empty, malformed and missing values', () => {
    expect(
      problemsOf(CreateStationRequest, { name: 'x'.repeat(81), slug: 'Not A Slug', extra: 1 }),
    ).toEqual([
      { path: 'name', message: 'Use at most 80 characters.' },
      {
        path: 'slug',
        message: 'Use lowercase letters, digits and single dashes, like night-owls.',
      },
      { path: 'extra', message: 'Not a field we know: extra.' },
    ]);
    expect(problemsOf(CreateStationRequest, { name: '   ' })).toEqual([
      { path: 'name', message: 'This is required.' },
    ]);
    expect(problemsOf(CreateStationRequest, {})).toEqual([
      { path: 'name', message: 'This is required.' },
    ]);
    const signUp = problemsOf(SignUpRequest, {
      email: 'not-an-address',
      password: 'short',
      name: 'A',
      username: 'ab',
    });
    expect(signUp).toEqual([
      { path: 'email', message: 'Enter an e-mail address, like name@example.com.' },
      { path: 'password', message: 'Use at least 8 characters.' },
      { path: 'username', message: 'Use at least 3 characters.' },
    ]);
  });

  it('never leaks zod wording', () => {
    const all = problemsOf(CreateStationRequest, {
      name: 5,
      slug: '-',
      description: 'x'.repeat(3000),
    });
    for (const p of all) expect(p.message).not.toMatch(/expected|Too big|Too small|Invalid/);
  });
});

describe('station page title and description', () => {
  const station = { name: 'Night Owls', broadcaster: { username: 'alice' }, description: '  ' };
  it("is '{name} by @{username}' with the product suffix", () => {
    expect(stationPageTitle(station)).toBe('Night Owls by @alice | Radio Broadcaster');
  });
  it('falls back when the description is empty or blank', () => {
    expect(stationPageDescription(station)).toBe('Live radio streaming.');
    expect(stationPageDescription({ description: ' Jazz ' })).toBe('Jazz');
  });
});
