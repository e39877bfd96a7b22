import type { Station, StationUpdatePush } from '@radiobroadcaster/contracts';
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api } from '../lib/api';
import { isApiStatus } from '../lib/api-error';
import { DEMO_STATION, isDemoPair, isDemoStationId } from '../lib/demo';

/** The detail is polled every 2000 ms, also in a background tab, always stale: listeners see status and counts move. */
export const STATION_POLL_MS = 2000;
/** Station loader staleness: a page opened again within a second reuses the detail. */
export const STATION_LOADER_STALE_MS = 1000;

export const stationKeys = {
  all: ['stations'] as const,
  detail: (stationId: string) => ['stations', 'detail', stationId] as const,
  bySlug: (username: string, slug: string) =>
    ['stations', 'by-slug', username.toLowerCase(), slug.toLowerCase()] as const,
  byUser: (username: string) => ['users', username.toLowerCase(), 'stations'] as const,
  discover: () => ['stations', 'discover'] as const,
  embed: (username: string, slug: string) =>
    ['stations', 'embed', username.toLowerCase(), slug.toLowerCase()] as const,
};

/**
 * The demo station as the server has it (live, its real now playing and listeners); the built-in
 * data only where the server does not run the demo (`DEMO_STATION=false`: it answers 404).
 */
async function demoFromServer(load: () => Promise<Station>): Promise<Station> {
  try {
    return await load();
  } catch (err) {
    if (isApiStatus(err, 404)) return DEMO_STATION;
    throw err;
  }
}

export const stationQueries = {
  detail: (stationId: string) =>
    queryOptions({
      queryKey: stationKeys.detail(stationId),
      queryFn: () =>
        isDemoStationId(stationId)
          ? demoFromServer(() => api.stations.get(stationId))
          : api.stations.get(stationId),
      staleTime: 0,
      // A deleted station (404) is not asked about again, nor a demo the server does not run.
      refetchInterval: (query) =>
        query.state.data === DEMO_STATION || isApiStatus(query.state.error, 404)
          ? false
          : STATION_POLL_MS,
      refetchIntervalInBackground: true,
      // A deleted station's page says so in place of its player.
      meta: { notFoundInPage: true },
    }),
  /** The station pages (and replays): the demo too comes from the server, live. */
  bySlug: (username: string, slug: string) =>
    queryOptions({
      queryKey: stationKeys.bySlug(username, slug),
      queryFn: () => {
        const load = () => api.users.getStationByUsernameAndSlug(username, slug);
        return isDemoPair(username, slug) ? demoFromServer(load) : load();
      },
      staleTime: STATION_LOADER_STALE_MS,
    }),
  /** The `/embed/…` loader: the demo pair is served from built-in data with no call (the spec's rule). */
  embedBySlug: (username: string, slug: string) =>
    queryOptions({
      queryKey: stationKeys.embed(username, slug),
      queryFn: () =>
        isDemoPair(username, slug)
          ? Promise.resolve(DEMO_STATION)
          : api.users.getStationByUsernameAndSlug(username, slug),
      staleTime: STATION_LOADER_STALE_MS,
    }),
  byUser: (username: string) =>
    queryOptions({
      queryKey: stationKeys.byUser(username),
      queryFn: () => api.users.getStationsByUsername(username),
    }),
  discover: () =>
    queryOptions({
      queryKey: stationKeys.discover(),
      queryFn: async () => (await api.stations.discover()).stations,
      meta: { errorToast: false },
    }),
};

/** Puts a freshly loaded station where the polled detail query will find it. */
export function seedStation(queryClient: QueryClient, station: Station): void {
  queryClient.setQueryData(stationKeys.detail(station.id), station);
}

/** Applies a socket `station:update` push to every cached copy of that station at once. */
export function applyStationPush(queryClient: QueryClient, push: StationUpdatePush): void {
  const merge = (s: Station): Station =>
    s.id === push.id
      ? {
          ...s,
          status: push.status,
          isActive: push.isActive,
          viewerCount: push.viewerCount,
          nowPlaying: push.nowPlaying,
          lastActiveAt: push.lastActiveAt,
        }
      : s;
  queryClient.setQueryData<Station>(stationKeys.detail(push.id), (old) => old && merge(old));
  queryClient.setQueriesData<Station>({ queryKey: ['stations', 'by-slug'] }, (old) =>
    old && old.id === push.id ? merge(old) : old,
  );
}
