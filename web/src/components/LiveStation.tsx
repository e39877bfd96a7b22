import type { Station } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { isApiStatus } from '../lib/api-error';
import { useStationUpdates } from '../lib/socket';
import { stationQueries } from '../queries/station.queries';

/**
 * Keeps a loaded station current: the detail query polls every 2 s (also in background tabs) and
 * socket pushes land in the same cache entry at once. `gone` once the station answers 404 (deleted).
 */
export function useLiveStationState(initial: Station): { station: Station; gone: boolean } {
  const { data, error } = useQuery({ ...stationQueries.detail(initial.id), initialData: initial });
  useStationUpdates(initial.id);
  return { station: data, gone: isApiStatus(error, 404) };
}

export function useLiveStation(initial: Station): Station {
  return useLiveStationState(initial).station;
}

export function LiveStation({
  initial,
  children,
}: {
  initial: Station;
  children: (station: Station, gone: boolean) => ReactNode;
}) {
  const { station, gone } = useLiveStationState(initial);
  return <>{children(station, gone)}</>;
}
