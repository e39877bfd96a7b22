import {
  ErrorTag,
  isReservedUsername,
  type Station,
  type UserStationsResponse,
} from '@radiobroadcaster/contracts';
import { createFileRoute } from '@tanstack/react-router';
import { NotFound } from '../../../components/NotFound';
import { Avatar } from '../../../components/StationArt';
import { StationCard } from '../../../components/StationCard';
import { UpcomingShows } from '../../../components/follow/UpcomingShows';
import { errorMessage, errorTag, isApiStatus } from '../../../lib/api-error';
import { EXTERNAL_REDIRECT_PATHS, leaveForServerRedirect } from '../../../lib/external-redirects';
import { jsonLd, pageMeta, withSuffix } from '../../../lib/seo';
import { stationQueries } from '../../../queries/station.queries';

const USER_NOT_FOUND = 'User not found';

interface ProfileLoaderData {
  user: UserStationsResponse['user'] | null;
  stations: Station[];
  error: string | null;
}

/** Live stations first, then the most recently active. */
function liveFirst(stations: Station[]): Station[] {
  const score = (s: Station) => (s.isActive && s.status === 'live' ? 1 : 0);
  return [...stations].sort(
    (a, b) =>
      score(b) - score(a) ||
      (b.lastActiveAt ?? b.createdAt).localeCompare(a.lastActiveAt ?? a.createdAt),
  );
}

export const Route = createFileRoute('/_site/$username/')({
  beforeLoad: ({ params }) => {
    leaveForServerRedirect(params.username);
  },
  loader: async ({ context: { queryClient }, params }): Promise<ProfileLoaderData> => {
    const { username } = params;
    // Reserved and file-like names are never users: no call is made for them.
    if (isReservedUsername(username) || EXTERNAL_REDIRECT_PATHS.includes(username.toLowerCase())) {
      return { user: null, stations: [], error: USER_NOT_FOUND };
    }
    try {
      const data = await queryClient.ensureQueryData(stationQueries.byUser(username));
      return { user: data.user, stations: liveFirst(data.stations), error: null };
    } catch (err) {
      const notFound = errorTag(err) === ErrorTag.UserNotFound || isApiStatus(err, 404);
      return { user: null, stations: [], error: notFound ? USER_NOT_FOUND : errorMessage(err) };
    }
  },
  head: ({ loaderData, params }) => ({
    meta: loaderData?.user
      ? pageMeta({
          title: withSuffix(`${loaderData.user.name} (@${loaderData.user.username})`),
          description: `Live stations by @${loaderData.user.username}.`,
          type: 'profile',
        })
      : pageMeta({ title: withSuffix(loaderData?.error ?? `@${params.username}`) }),
    scripts: loaderData?.user
      ? [
          jsonLd({
            '@type': 'ItemList',
            name: `Stations by @${loaderData.user.username}`,
            itemListElement: loaderData.stations.map((s, i) => ({
              '@type': 'ListItem',
              position: i + 1,
              name: s.name,
              url: `${location.origin}/${s.broadcaster.username}/${s.slug}`,
            })),
          }),
        ]
      : [],
  }),
  component: ProfilePage,
});

function ProfilePage() {
  const { user, stations, error } = Route.useLoaderData();
  const { username } = Route.useParams();
  if (!user) {
    const title = error ?? 'Unknown error';
    return (
      <div data-testid="profile-error">
        <NotFound
          title={title}
          message={title === USER_NOT_FOUND ? `No broadcaster is called @${username}.` : title}
        />
      </div>
    );
  }
  const liveCount = stations.filter((s) => s.isActive && s.status === 'live').length;
  return (
    <div className="container page" data-testid="profile">
      <header className="page-header profile-header">
        <Avatar user={user} size={72} />
        <div>
          <p className="eyebrow">Broadcaster</p>
          <h1 data-testid="profile-name">{user.name}</h1>
          <p className="muted" data-testid="profile-username">
            @{user.username} · {stations.length} {stations.length === 1 ? 'station' : 'stations'}
            {liveCount > 0 ? ` · ${liveCount} live now` : ''}
          </p>
        </div>
      </header>
      <UpcomingShows stations={stations} />
      {stations.length === 0 ? (
        <p className="card muted" data-testid="profile-empty">
          No stations yet.
        </p>
      ) : (
        <ul className="station-grid" aria-label={`Stations by @${user.username}`}>
          {stations.map((s) => (
            <li key={s.id}>
              <StationCard station={s} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
