import type { Station, StationFeeds } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiFetch } from '../../lib/api';
import { grantFor, withGrant } from '../../lib/listen-grant';
import { CopyButton } from '../CopyButton';
import './access.css';

/**
 * A private station's podcast and calendar addresses for this listener (or its owner): their own,
 * secret, working as long as their access does (`GET /api/stations/{id}/feeds?grant=`). Shown
 * only once this browser was let in.
 */
export function PrivateFeeds({ station }: { station: Station }) {
  // the player stores the grant when it is let in: look again now and then
  const [grant, setGrant] = useState(() => grantFor(station.id));
  useEffect(() => {
    if (station.visibility !== 'private') return;
    const t = setInterval(() => setGrant(grantFor(station.id)), 1000);
    return () => clearInterval(t);
  }, [station.id, station.visibility]);
  const feeds = useQuery({
    queryKey: ['station-feeds', station.id, grant],
    queryFn: () =>
      apiFetch<StationFeeds>(
        withGrant(`/api/stations/${encodeURIComponent(station.id)}/feeds`, grant),
      ),
    enabled: station.visibility === 'private',
    retry: false,
    staleTime: Infinity,
    meta: { errorToast: false },
  });
  if (station.visibility !== 'private' || !feeds.data?.personal) return null;
  const rows = [
    { what: 'Podcast (replays)', url: feeds.data.podcastUrl, id: 'podcast' },
    { what: 'Calendar (shows)', url: feeds.data.calendarUrl, id: 'calendar' },
  ];
  return (
    <section
      className="card share-card"
      aria-labelledby="private-feeds"
      data-testid="private-feeds"
    >
      <h2 id="private-feeds">Your private feeds</h2>
      <p className="muted small">
        Paste these into a podcast app or a calendar. They are yours alone: they stop working if the
        owner takes your access away, so don't share them.
      </p>
      {rows.map((r) => (
        <div key={r.id}>
          <h3>{r.what}</h3>
          <div className="share-row">
            <code
              className="share-url private-feed-url"
              title={r.url}
              data-testid={`private-feed-${r.id}`}
            >
              {r.url}
            </code>
            <CopyButton text={r.url} label="Copy" aria-label={`Copy your ${r.id} address`} />
          </div>
        </div>
      ))}
    </section>
  );
}
