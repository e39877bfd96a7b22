import { createFileRoute } from '@tanstack/react-router';
import { LiveStation } from '../../../components/LiveStation';
import { StationNotFound } from '../../../components/StationNotFound';
import { StationView } from '../../../components/StationView';
import { stationRoute } from '../../../lib/station-route';
import { stationQueries } from '../../../queries/station.queries';

export const Route = createFileRoute('/_site/station/$stationId')({
  ...stationRoute((p: { stationId: string }) => stationQueries.detail(p.stationId), {
    breadcrumb: true,
  }),
  component: StationByIdPage,
});

/** A failed load by id yields no station: the plain station-not-found view. */
function StationByIdPage() {
  const { station } = Route.useLoaderData();
  if (!station) return <StationNotFound />;
  return (
    <div className="container page">
      <LiveStation key={station.id} initial={station}>
        {(live, gone) => <StationView station={live} gone={gone} />}
      </LiveStation>
    </div>
  );
}
