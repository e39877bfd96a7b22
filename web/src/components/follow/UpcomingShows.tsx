import { type ShowOccurrence, type Station } from '@radiobroadcaster/contracts';
import { useQueries } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { followApi } from './follow-api';
import './follow.css';

/** The next shows of all of a broadcaster's stations, soonest first, in the visitor's time. */
export function UpcomingShows({ stations }: { stations: Station[] }) {
  const feeds = useQueries({
    queries: stations.map((s) => ({
      queryKey: ['stations', s.id, 'shows', 'profile'],
      queryFn: () => followApi.shows(s.id),
      staleTime: 60_000,
    })),
  });
  const list: { o: ShowOccurrence; s: Station }[] = feeds
    .flatMap((f, i) =>
      (f.data?.occurrences ?? [])
        .filter((o) => o.state === 'upcoming' || o.state === 'live')
        .map((o) => ({ o, s: stations[i]! })),
    )
    .sort((a, b) => a.o.startsAt.localeCompare(b.o.startsAt))
    .slice(0, 10);
  if (list.length === 0) return null;
  return (
    <section
      className="card profile-shows"
      aria-labelledby="upcoming-title"
      data-testid="profile-shows"
    >
      <h2 id="upcoming-title">Upcoming shows</h2>
      <ul className="upcoming-shows">
        {list.map(({ o, s }) => (
          <li key={`${o.showId}@${o.startsAt}`} data-testid="profile-show">
            <span>
              <strong>{o.title}</strong> on{' '}
              <Link
                to="/$username/$stationSlug"
                params={{ username: s.broadcaster.username, stationSlug: s.slug }}
              >
                {s.name}
              </Link>
            </span>
            <time className="muted" dateTime={o.startsAt}>
              {o.state === 'live'
                ? 'live now'
                : new Date(o.startsAt).toLocaleString(undefined, {
                    weekday: 'long',
                    day: 'numeric',
                    month: 'short',
                    hour: 'numeric',
                    minute: '2-digit',
                  })}
            </time>
          </li>
        ))}
      </ul>
    </section>
  );
}
