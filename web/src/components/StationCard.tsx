import type { Station } from '@radiobroadcaster/contracts';
import { broadcasterLabel } from '@radiobroadcaster/player';
import { Link } from '@tanstack/react-router';
import { StationArt } from './StationArt';
import { StatusBadge, listenerLabel } from './StationView';

export function StationCard({ station }: { station: Station }) {
  return (
    <Link
      to="/$username/$stationSlug"
      params={{ username: station.broadcaster.username, stationSlug: station.slug }}
      className="station-card card"
      data-testid="station-card"
    >
      <div className="station-card-head">
        <StationArt station={station} size="sm" />
        <div className="station-card-title">
          <h2 className="station-card-name">{station.name}</h2>
          <p className="muted small">{broadcasterLabel(station.broadcaster)}</p>
        </div>
      </div>
      <div className="station-top">
        <StatusBadge station={station} />
        <span className="listeners muted">{listenerLabel(station.viewerCount)}</span>
      </div>
      {station.nowPlaying ? (
        <p className="small np-line">
          <span className="eyebrow">Now playing</span> {station.nowPlaying.track}
          {station.nowPlaying.artist ? ` — ${station.nowPlaying.artist}` : ''}
        </p>
      ) : station.description ? (
        <p className="small muted clamp">{station.description}</p>
      ) : null}
    </Link>
  );
}
