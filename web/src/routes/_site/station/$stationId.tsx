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
import { STATION_LOADER_STALE_MS, stationQueries } from '../../../queries/station.queries';

export const Route = createFileRoute('/_site/station/$stationId')({
  staleTime: STATION_LOADER_STALE_MS,
  // Spec §8: a failed load by id yields no station (and the not-found view).
  loader: async ({
    context: { queryClient },
    params,
  }): Promise<{ station: Station | null; error: string | null }> => {
    try {
      return {
        station: await queryClient.ensureQueryData(stationQueries.detail(params.stationId)),
        error: null,
      };
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
  component: StationByIdPage,
});

function StationByIdPage() {
  const { station } = Route.useLoaderData();
  if (!station) return <StationNotFound />;
  return (
    <div className="container narrow page">
      <LiveStation key={station.id} initial={station}>
        {(live) => <StationView station={live} />}
      </LiveStation>
    </div>
  );
}
