import type { Station } from '@radiobroadcaster/contracts';
import { Link } from '@tanstack/react-router';
import { siteOrigin } from '../../lib/site';
import { CopyButton } from '../CopyButton';
import { StationTop } from '../StationView';

/** The station at a glance: state, listeners, its public address. */
export function StationHeaderCard({ station }: { station: Station }) {
  const username = station.broadcaster.username;
  const url = `${siteOrigin()}/${username}/${station.slug}`;
  return (
    <section className="card" aria-labelledby="onair-title" data-testid="studio-status">
      <StationTop station={station} studio />
      <h2 id="onair-title" className="station-name" data-testid="station-name">
        {station.name}
      </h2>
      <div className="share-row">
        <Link
          to="/$username/$stationSlug"
          params={{ username, stationSlug: station.slug }}
          data-testid="studio-public-link"
        >
          /{username}/{station.slug}
        </Link>
        <CopyButton text={url} label="Copy link" />
        <Link
          to="/studio/$stationId/stats"
          params={{ stationId: station.id }}
          className="small"
          data-testid="studio-stats-link"
        >
          Listening stats
        </Link>
        <Link
          to="/studio/$stationId/webhooks"
          params={{ stationId: station.id }}
          className="small"
          data-testid="studio-webhooks-link"
        >
          Webhooks
        </Link>
      </div>
    </section>
  );
}
