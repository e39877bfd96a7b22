import type { Station } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { isDemoStationId } from '../lib/demo';
import { useStationUpdates } from '../lib/socket';
import { stationQueries } from '../queries/station.queries';

/**
 * Keeps a loaded station current: the detail query polls every 2 s (also in background tabs) and
 * socket `station:update` pushes land in the same cache entry at once.
 */
export function useLiveStation(initial: Station): Station {
  const { data } = useQuery({ ...stationQueries.detail(initial.id), initialData: initial });
  useStationUpdates(initial.id, !isDemoStationId(initial.id));
  return data;
}

export function LiveStation({
  initial,
  children,
}: {
  initial: Station;
  children: (station: Station) => ReactNode;
}) {
  return <>{children(useLiveStation(initial))}</>;
}
