// Compile-time checks, by `tsc -p libs/player` (`npm run check`) and by `src/types.spec.ts` in
// `npm test`: the player's own wire types stay in step with the shared contract in both directions.
import type * as Contracts from '@radiobroadcaster/contracts';
import type { JoinStationResponse, Station } from '../../src/types.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const stationMatches: Same<Station, Contracts.Station> = true;
export const joinMatches: Same<JoinStationResponse, Contracts.JoinStationResponse> = true;

// `Same` itself tells types apart: a field missing on either side, or of another type, is an error.
// @ts-expect-error the player's Station without `name` is not the contract's
export const missingField: Same<Omit<Station, 'name'>, Contracts.Station> = true;
// @ts-expect-error a contract with one more field is not the player's Station
export const extraField: Same<Station, Contracts.Station & { extra: 1 }> = true;
// @ts-expect-error nor one where a field has another type
export const otherType: Same<Omit<Station, 'name'> & { name: number }, Contracts.Station> = true;
