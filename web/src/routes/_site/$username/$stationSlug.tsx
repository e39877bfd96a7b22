import { createFileRoute } from '@tanstack/react-router';
import { LiveStation } from '../../../components/LiveStation';
import { StationNotFound } from '../../../components/StationNotFound';
import { StationView } from '../../../components/StationView';
import { stationRoute } from '../../../lib/station-route';
import { stationQueries } from '../../../queries/station.queries';

export const Route = createFileRoute('/_site/$username/$stationSlug')({
  ...stationRoute(
    (p: { username: string; stationSlug: string }) =>
      stationQueries.bySlug(p.username, p.stationSlug),
    { breadcrumb: true },
  ),
  component: StationPage,
});

function StationPage() {
  const { station, error } = Route.useLoaderData();
  if (!station) return <StationNotFound message={error} />;
  return (
    <div className="container page">
      <LiveStation key={station.id} initial={station}>
        {(live, gone) => <StationView station={live} gone={gone} />}
      </LiveStation>
    </div>
  );
}
