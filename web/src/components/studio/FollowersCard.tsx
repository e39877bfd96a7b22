import type { Station } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { followApi, followKeys } from '../follow/follow-api';

/** How many follow the station (never who: the list is nobody's to see). */
export function FollowersCard({ station }: { station: Station }) {
  const counts = useQuery({
    queryKey: followKeys.counts(station.id),
    queryFn: () => followApi.counts(station.id),
    refetchInterval: 60_000,
  });
  const c = counts.data;
  return (
    <section className="card" aria-labelledby="followers-title" data-testid="studio-followers">
      <h2 id="followers-title">Followers</h2>
      {c ? (
        <>
          <p className="stat-big" data-testid="followers-count">
            <strong>{c.followers}</strong> {c.followers === 1 ? 'follower' : 'followers'}
          </p>
          <p className="muted small">
            {c.email} by e-mail · {c.push} by browser notification
            {c.pending ? ` · ${c.pending} waiting to confirm their e-mail` : ''}. They are told when
            you go live (once, even if your connection drops and comes back).
          </p>
        </>
      ) : (
        <p className="muted">…</p>
      )}
    </section>
  );
}
