import type { Station } from '@radiobroadcaster/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { LiveStation } from '../../../components/LiveStation';
import { StationNotFound } from '../../../components/StationNotFound';
import { StationView } from '../../../components/StationView';
import { errorMessage } from '../../../lib/api-error';
import {
  pageMeta,
  stationBreadcrumb,
  stationDescription,
  stationTitle,
  withSuffix,
} from '../../../lib/seo';
import {
  STATION_LOADER_STALE_MS,
  seedStation,
  stationQueries,
} from '../../../queries/station.queries';

export interface StationLoaderData {
  station: Station | null;
  error: string | null;
}

export const Route = createFileRoute('/_site/$username/$stationSlug')({
  staleTime: STATION_LOADER_STALE_MS,
  loader: async ({ context: { queryClient }, params }): Promise<StationLoaderData> => {
    try {
      const station = await queryClient.ensureQueryData(
        stationQueries.bySlug(params.username, params.stationSlug),
      );
      seedStation(queryClient, station);
      return { station, error: null };
    } catch (err) {
      return { station: null, error: errorMessage(err) };
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
    scripts: loaderData?.station ? [stationBreadcrumb(loaderData.station)] : [],
  }),
  component: StationPage,
});

function StationPage() {
  const { station, error } = Route.useLoaderData();
  if (!station) return <StationNotFound message={error ?? 'Unknown error'} />;
  return (
    <div className="container narrow page">
      <LiveStation key={station.id} initial={station}>
        {(live) => <StationView station={live} />}
      </LiveStation>
    </div>
  );
}
