import type { Station } from '@radiobroadcaster/contracts';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { z } from 'zod';
import { AuthRequiredOrError } from '../../components/AuthRequired';
import { useLiveStation } from '../../components/LiveStation';
import { AccessCard } from '../../components/studio/AccessCard';
import { ArtworkCard } from '../../components/studio/ArtworkCard';
import { CreateStationCard } from '../../components/studio/CreateStationCard';
import { DeleteStationCard } from '../../components/studio/DeleteStationCard';
import { OnAirConsole } from '../../components/studio/OnAirConsole';
import { NowPlayingCard } from '../../components/studio/NowPlayingCard';
import { OtherSoftwareCard } from '../../components/studio/OtherSoftwareCard';
import { PublicStreamCard } from '../../components/studio/PublicStreamCard';
import { RelaysCard } from '../../components/studio/RelaysCard';
import { ProfilePictureCard } from '../../components/studio/ProfilePictureCard';
import { RecordingsCard } from '../../components/studio/RecordingsCard';
import { ScheduleCard } from '../../components/studio/ScheduleCard';
import { FollowersCard } from '../../components/studio/FollowersCard';
import { PodcastCard } from '../../components/studio/PodcastCard';
import { StationDetailsCard } from '../../components/studio/StationDetailsCard';
import { StationHeaderCard } from '../../components/studio/StationHeaderCard';
import { StudioSections } from '../../components/studio/StudioSections';
import { StudioTogetherCard } from '../../components/together/StudioTogetherCard';
import { requireSessionOrSignIn } from '../../lib/auth';
import { pageMeta, withSuffix } from '../../lib/seo';
import { stationQueries } from '../../queries/station.queries';

const StudioSearch = z.object({
  station: z.string().optional().catch(undefined),
});

export const Route = createFileRoute('/_site/studio')({
  validateSearch: StudioSearch,
  // Signed out, "Start broadcasting" opens Sign in (with a link to create an account), then comes back here.
  beforeLoad: async ({ context: { queryClient }, location }) => ({
    session: await requireSessionOrSignIn(queryClient, location.href),
  }),
  loader: async ({ context: { queryClient, session } }) => {
    await queryClient.ensureQueryData(stationQueries.byUser(session.user.username));
    return { username: session.user.username };
  },
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Studio'),
      description: 'Create stations and go live from your browser.',
    }),
  }),
  errorComponent: AuthRequiredOrError,
  component: StudioPage,
});

function StudioPage() {
  const { username } = Route.useLoaderData();
  const { station: selectedId } = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const { data } = useSuspenseQuery(stationQueries.byUser(username));
  const stations = data.stations;
  const selected =
    selectedId === 'new' ? undefined : (stations.find((s) => s.id === selectedId) ?? stations[0]);
  const creating = selectedId === 'new' || stations.length === 0;
  const select = (id: string) => void navigate({ search: { station: id }, replace: true });

  return (
    <div className="container page" data-testid="studio">
      <header className="page-header">
        <p className="eyebrow">Studio</p>
        <h1>Your stations</h1>
        <p className="muted">Create a station, pick a source and go live from this browser.</p>
      </header>
      <div className="studio">
        <div className="studio-side">
          <nav aria-label="Stations">
            <ul className="studio-list">
              {stations.map((s) => (
                <li key={s.id}>
                  <button
                    type="button"
                    onClick={() => select(s.id)}
                    aria-current={!creating && selected?.id === s.id ? 'true' : undefined}
                    data-testid="studio-station"
                  >
                    <strong>{s.name}</strong>
                    <span className="muted small">
                      /{username}/{s.slug}
                    </span>
                  </button>
                </li>
              ))}
              <li>
                <button
                  type="button"
                  onClick={() => select('new')}
                  aria-current={creating ? 'true' : undefined}
                  data-testid="studio-new"
                >
                  <strong>+ New station</strong>
                </button>
              </li>
            </ul>
          </nav>
          <ProfilePictureCard />
        </div>
        <div className="panel">
          {creating || !selected ? (
            <CreateStationCard username={username} onCreated={select} />
          ) : (
            <StationStudio
              key={selected.id}
              initial={selected}
              onDeleted={() => void navigate({ search: {}, replace: true })}
            />
          )}
        </div>
      </div>
    </div>
  );
}

function StationStudio({ initial, onDeleted }: { initial: Station; onDeleted: () => void }) {
  const station = useLiveStation(initial);
  // The console stays in view while live; each line below is one section of the studio.
  return (
    <>
      <OnAirConsole station={station} />
      <StudioSections>
        <StationHeaderCard station={station} />
        <NowPlayingCard station={station} />
        <StudioTogetherCard station={station} />
        <OtherSoftwareCard station={station} />
        <PublicStreamCard station={station} />
        <AccessCard station={station} />
        <RelaysCard station={station} />
        <RecordingsCard station={station} />
        <ScheduleCard station={station} />
        <FollowersCard station={station} />
        <PodcastCard station={station} />
        <ArtworkCard station={station} />
        <StationDetailsCard station={station} username={station.broadcaster.username} />
        <DeleteStationCard station={station} onDeleted={onDeleted} />
      </StudioSections>
    </>
  );
}
