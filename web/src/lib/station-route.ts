import type { Station } from '@radiobroadcaster/contracts';
import type { FetchQueryOptions } from '@tanstack/react-query';
import type { RouterContext } from '../router';
import { seedStation, STATION_LOADER_STALE_MS } from '../queries/station.queries';
import { errorMessage } from './api-error';
import { pageMeta, stationBreadcrumb, stationDescription, stationTitle, withSuffix } from './seo';

/** What the station routes load: the station, or no station and why ('Unknown error' at worst). */
export interface StationLoaderData {
  station: Station | null;
  error: string | null;
}

/**
 * The loader, head and staleness shared by the three station routes (by address, by id, embed):
 * `query` finds the station from the route's params; a failure becomes `{ station: null, error }`.
 */
export function stationRoute<P, K extends readonly unknown[]>(
  query: (params: P) => FetchQueryOptions<Station, Error, Station, K>,
  opts: { breadcrumb: boolean },
) {
  return {
    staleTime: STATION_LOADER_STALE_MS,
    loader: async ({
      context: { queryClient },
      params,
    }: {
      context: RouterContext;
      params: P;
    }): Promise<StationLoaderData> => {
      try {
        const station = await queryClient.ensureQueryData(query(params));
        seedStation(queryClient, station);
        return { station, error: null };
      } catch (err) {
        return { station: null, error: errorMessage(err) || 'Unknown error' };
      }
    },
    head: ({ loaderData }: { loaderData?: StationLoaderData }) => {
      const station = loaderData?.station;
      return {
        meta: station
          ? pageMeta({
              title: stationTitle(station),
              description: stationDescription(station),
              type: 'music.radio_station',
            })
          : pageMeta({ title: withSuffix('Station not found') }),
        scripts: station && opts.breadcrumb ? [stationBreadcrumb(station)] : [],
      };
    },
  };
}
