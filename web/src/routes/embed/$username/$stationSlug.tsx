import { PRODUCT_NAME, type Station } from '@radiobroadcaster/contracts';
import { Link, createFileRoute } from '@tanstack/react-router';
import { useEffect } from 'react';
import { z } from 'zod';
import { Logo } from '../../../components/Logo';
import { useLiveStation } from '../../../components/LiveStation';
import {
  NowPlayingView,
  PlayerControls,
  StatusBadge,
  listenerLabel,
} from '../../../components/StationView';
import { errorMessage } from '../../../lib/api-error';
import { pageMeta, stationDescription, stationTitle, withSuffix } from '../../../lib/seo';
import {
  STATION_LOADER_STALE_MS,
  seedStation,
  stationQueries,
} from '../../../queries/station.queries';

/** Spec §2/§5: theme is light or dark; anything else (or nothing) becomes dark. */
const EmbedSearch = z.object({ theme: z.enum(['light', 'dark']).catch('dark') });
export type EmbedTheme = z.infer<typeof EmbedSearch>['theme'];

export const Route = createFileRoute('/embed/$username/$stationSlug')({
  validateSearch: (search: Record<string, unknown>): { theme?: EmbedTheme } =>
    EmbedSearch.parse(search),
  staleTime: STATION_LOADER_STALE_MS,
  loader: async ({
    context: { queryClient },
    params,
  }): Promise<{ station: Station | null; error: string | null }> => {
    try {
      const station = await queryClient.ensureQueryData(
        stationQueries.bySlug(params.username, params.stationSlug),
      );
      seedStation(queryClient, station);
      return { station, error: null };
    } catch (err) {
      return { station: null, error: errorMessage(err) || 'Unknown error' };
    }
  },
  head: ({ loaderData }) => ({
    meta: loaderData?.station
      ? pageMeta({
          title: stationTitle(loaderData.station),
          description: stationDescription(loaderData.station),
          type: 'music.radio_station',
        })
      : pageMeta({ title: withSuffix('Station not found') }),
  }),
  component: EmbedPlayerPage,
});

function useThemeClass(theme: EmbedTheme) {
  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = theme;
    root.classList.add('embed-doc');
    return () => {
      delete root.dataset.theme;
      root.classList.remove('embed-doc');
    };
  }, [theme]);
}

function EmbedPlayerPage() {
  const { station, error } = Route.useLoaderData();
  const { theme = 'dark' } = Route.useSearch();
  useThemeClass(theme);
  return (
    <main className="embed" data-theme={theme} data-testid="embed" id="main">
      {station ? (
        <EmbedCard initial={station} />
      ) : (
        <div className="embed-card embed-error" role="alert" data-testid="embed-error">
          <h1 className="embed-error-title">Station unavailable</h1>
          <p className="muted small">{error ?? 'Unknown error'}</p>
        </div>
      )}
    </main>
  );
}

function EmbedCard({ initial }: { initial: Station }) {
  const station = useLiveStation(initial);
  const { username } = { username: station.broadcaster.username };
  return (
    <article className="embed-card" data-testid="station" data-station-id={station.id}>
      <div className="station-top">
        <StatusBadge station={station} />
        <span
          className="listeners small"
          data-testid="station-listeners"
          data-count={station.viewerCount}
        >
          {listenerLabel(station.viewerCount)}
        </span>
      </div>
      <h1 className="embed-name" data-testid="station-name">
        {station.name}
      </h1>
      <p className="muted small">@{username}</p>
      <NowPlayingView station={station} />
      <PlayerControls station={station} />
      <footer className="embed-footer">
        <Link
          to="/$username/$stationSlug"
          params={{ username, stationSlug: station.slug }}
          target="_blank"
          rel="noopener"
          className="embed-brand"
        >
          <Logo size={18} />
          <span>Listen on {PRODUCT_NAME}</span>
          <span className="sr-only"> (opens in a new tab)</span>
        </Link>
      </footer>
    </article>
  );
}
