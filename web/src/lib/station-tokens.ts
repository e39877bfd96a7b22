import type { StationToken } from '@radiobroadcaster/contracts';
import { api } from './api';

/** Refresh a token this long before it expires. */
const REFRESH_MARGIN_MS = 60_000;

const tokens = new Map<string, StationToken>();

export function rememberStationToken(stationId: string, token: StationToken): void {
  tokens.set(stationId, token);
}

export function currentStationToken(stationId: string): StationToken | undefined {
  return tokens.get(stationId);
}

/** A token that stays valid for at least the refresh margin, renewed through the API when needed. */
export async function freshStationToken(stationId: string): Promise<StationToken> {
  const known = tokens.get(stationId);
  if (known && Date.parse(known.expiresAt) - Date.now() > REFRESH_MARGIN_MS) return known;
  const renewed = await api.stations.refreshToken(stationId);
  tokens.set(stationId, renewed);
  return renewed;
}

/** Milliseconds until the token should be renewed (never less than 5 s). */
export function msUntilRefresh(token: StationToken): number {
  const left = Date.parse(token.expiresAt) - Date.now();
  return Math.max(5_000, Math.min(left - REFRESH_MARGIN_MS, left * 0.8));
}
