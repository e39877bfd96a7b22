import type { Station } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { LiveStation } from '../../../components/LiveStation';
import { ReplayList } from '../../../components/Replays';
import { StationNotFound } from '../../../components/StationNotFound';
import { StationView } from '../../../components/StationView';
import { isDemoStationId } from '../../../lib/demo';
import { stationRoute } from '../../../lib/station-route';
import { recordingQueries } from '../../../queries/recordings.queries';
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
        {(live, gone) => (
          <>
            <StationView station={live} gone={gone} />
            {gone ? null : <StationReplays station={live} />}
          </>
        )}
      </LiveStation>
    </div>
  );
}

/** The station's published replays (loaded after the page: the player comes first). */
function StationReplays({ station }: { station: Station }) {
  const { data } = useQuery({
    ...recordingQueries.list(station.id),
    enabled: !isDemoStationId(station.id),
    meta: { errorToast: false },
  });
  // The owner's list holds unpublished and unfinished ones too; the page shows what anyone hears.
  const published = (data ?? []).filter((r) => r.published && r.status !== 'recording');
  return (
    <div className="station-replays">
      <ReplayList
        recordings={published}
        username={station.broadcaster.username}
        slug={station.slug}
      />
    </div>
  );
}
