import { describe, expect, it } from '@jest/globals';
import type * as Contracts from '@radiobroadcaster/contracts';
import type { JoinStationResponse, Station } from './types.js';

// Compile-time checks (run by `tsc -p libs/player`): the player's own wire types stay in step with the
// shared contract in both directions.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const stationMatches: Same<Station, Contracts.Station> = true;
const joinMatches: Same<JoinStationResponse, Contracts.JoinStationResponse> = true;

describe('wire types', () => {
  it('match @radiobroadcaster/contracts', () => {
    expect([stationMatches, joinMatches]).toEqual([true, true]);
  });
});
