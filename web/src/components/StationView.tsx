import { PRODUCT_NAME, type Recording, type Station } from '@radiobroadcaster/contracts';
import { OFF_AIR, broadcasterLabel } from '@radiobroadcaster/player';
import { stationDescription } from '../lib/seo';
import { siteOrigin } from '../lib/site';
import { CopyButton } from './CopyButton';
import { EmbedSnippet } from './EmbedSnippet';
import { StreamUrl } from './StreamUrl';
import { UrlText } from './UrlText';
import { SiteLevel } from './SiteLevel';
import { Avatar, StationArt } from './StationArt';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId } from 'react';
import { isDemoStationId } from '../lib/demo';
import { formatAgo } from '../lib/time';
import { recordingQueries } from '../queries/recordings.queries';
import { LoadError } from './LoadError';
import { formatDuration, formatWhen, ReplayList } from './Replays';
import { usePlayback } from '../lib/use-playback';
import { PrivateFeeds } from './access/PrivateFeeds';
import { PrivateUnlock } from './access/PrivateUnlock';
import { ChatPanel } from './together/ChatPanel';
import { useReportPlaying } from './together/useTogether';
import { HeadphonesIcon, PlayIcon, StopIcon, VolumeIcon } from './icons';
import { NextShow } from './NextShow';
import { FollowButton } from './follow/FollowButton';

export function isLive(station: Station): boolean {
  return station.isActive && station.status === 'live';
}

/** Live, or waiting for its publisher to come back: listeners are still connected. */
export function isOnAir(station: Station): boolean {
  return station.isActive && (station.status === 'live' || station.status === 'reconnecting');
}

/** One word for not live: the API's `offline` (before a first broadcast) and `ended` read the same. */
const STATUS_TEXT: Record<Station['status'], string> = {
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: OFF_AIR,
  ended: OFF_AIR,
};

export function StatusBadge({ station }: { station: Station }) {
  const live = isLive(station);
  const status = station.isActive || station.status !== 'live' ? station.status : 'offline';
  return (
    <span
      className={`badge ${live ? 'badge-live' : status === 'reconnecting' ? 'badge-wait' : 'badge-off'}`}
      data-testid="station-status"
      data-status={station.status}
    >
      <span className="badge-dot" aria-hidden="true" />
      {STATUS_TEXT[status]}
    </span>
  );
}

/**
 * The station's state and how many listen. The studio announces changes of the count to its
 * broadcaster; on the public page they would only interrupt the listeners.
 */
export function StationTop({ station, studio = false }: { station: Station; studio?: boolean }) {
  return (
    <div className="station-top">
      <StatusBadge station={station} />
      <span
        className="listeners"
        data-testid="station-listeners"
        data-count={station.viewerCount}
        aria-live={studio ? 'polite' : undefined}
      >
        {studio ? null : (
          <>
            <HeadphonesIcon />{' '}
          </>
        )}
        {listenerLabel(station.viewerCount)}
      </span>
    </div>
  );
}

export function listenerLabel(count: number): string {
  return `${count} ${count === 1 ? 'listener' : 'listeners'}`;
}

export function NowPlayingView({ station }: { station: Station }) {
  const np = station.nowPlaying;
  return (
    <div className="now-playing" data-testid="now-playing" aria-live="polite">
      <p className="eyebrow">Now playing</p>
      {np ? (
        <>
          <p className="np-track" data-testid="now-playing-track">
            {np.track}
          </p>
          {np.artist || np.album ? (
            <p className="np-meta muted">
              {np.artist ? <span data-testid="now-playing-artist">{np.artist}</span> : null}
              {np.artist && np.album ? <span aria-hidden="true"> · </span> : null}
              {np.album ? <span data-testid="now-playing-album">{np.album}</span> : null}
            </p>
          ) : null}
        </>
      ) : (
        <p className="muted" data-testid="now-playing-empty">
          Nothing announced right now.
        </p>
      )}
    </div>
  );
}

const STATE_TEXT: Record<string, string> = {
  idle: 'Stopped',
  connecting: 'Connecting',
  live: 'Playing',
  offline: 'Waiting for the station to go live',
  error: 'Cannot play this station',
  blocked: 'The browser blocked audio: press Play',
  'not-allowed': "This station can't be played on this site.",
  private: 'Private station',
};

/**
 * Play/stop, volume and the hidden audio element that carries the station. Off air there is no
 * big Play (it could only wait): a plain "Listen when it goes live" starts the same wait instead.
 */
export function PlayerControls({ station }: { station: Station }) {
  const playback = usePlayback(station);
  const { audioRef, state, viaHttp, wanted, errorText, play, stop } = playback;
  useReportPlaying(station.id, wanted && state === 'live');
  const waiting = station.status === 'reconnecting' && state === 'live';
  const offAir = !isOnAir(station) && !isDemoStationId(station.id);
  const label =
    waiting && wanted
      ? 'Reconnecting…'
      : state === 'connecting' && wanted
        ? 'Connecting…'
        : state === 'offline' && wanted
          ? 'Waiting…'
          : wanted
            ? 'Stop'
            : state === 'error'
              ? 'Retry'
              : offAir
                ? 'Listen when it goes live'
                : 'Play';
  return (
    <div className="player-wrap">
      <div className="player" data-testid="player" data-state={state} data-off-air={offAir}>
        <button
          type="button"
          className={
            offAir ? `btn${wanted ? ' is-playing' : ''}` : `play-btn ${wanted ? 'is-playing' : ''}`
          }
          onClick={() => (wanted ? stop() : play())}
          // Off air and idle, its visible words are its name.
          aria-label={wanted ? `Stop ${station.name}` : offAir ? undefined : `Play ${station.name}`}
          data-testid="play-button"
        >
          {offAir && !wanted ? null : wanted ? <StopIcon /> : <PlayIcon />}
          <span className="play-label">{label}</span>
        </button>
        {offAir && !wanted ? null : <VolumeControl playback={playback} />}
        <audio ref={audioRef} data-testid="station-audio" />
      </div>
      {offAir ? null : <SiteLevel audioRef={audioRef} active={state === 'live' && wanted} />}
      <p
        className={
          (state === 'idle' || state === 'live') && !waiting ? 'sr-only' : 'player-note muted small'
        }
        role="status"
        data-testid="player-state"
        data-state={state}
        data-reconnecting={waiting || undefined}
      >
        {waiting
          ? 'Reconnecting… The broadcaster’s connection dropped; playback resumes when it is back.'
          : (STATE_TEXT[state] ?? state)}
        {errorText ? ` — ${errorText}` : ''}
      </p>
      {state === 'private' ? <PrivateUnlock onUnlock={playback.unlock} /> : null}
      {viaHttp && state === 'live' ? (
        <p className="player-note muted small" data-testid="player-http">
          Playing the HTTP stream: a live connection could not be made from this network (a few
          seconds more delay).
        </p>
      ) : null}
    </div>
  );
}

/** Mute and the volume slider (0–100 %); the level is remembered for the next visit. */
function VolumeControl({
  playback: { volume, setVolume, muted, setMuted },
}: {
  playback: ReturnType<typeof usePlayback>;
}) {
  const volumeId = useId();
  const shownVolume = Math.round((muted ? 0 : volume) * 100);
  return (
    <div className="volume">
      <button
        type="button"
        className="icon-btn"
        onClick={() => setMuted(!muted)}
        aria-pressed={muted}
        aria-label={muted ? 'Unmute' : 'Mute'}
        data-testid="mute-button"
      >
        <VolumeIcon muted={muted || volume === 0} />
      </button>
      <label htmlFor={volumeId} className="sr-only">
        Volume
      </label>
      <input
        id={volumeId}
        type="range"
        min={0}
        max={100}
        step={1}
        value={shownVolume}
        onChange={(e) => setVolume(Number(e.target.value) / 100)}
        aria-valuetext={`${shownVolume}%`}
        data-testid="volume"
      />
    </div>
  );
}

/** Shown in place of the player once the station is deleted while someone had it open. */
export function StationGone({ station }: { station: Station }) {
  const username = station.broadcaster.username;
  return (
    <div className="notice gone" role="alert" data-testid="station-gone">
      <p>
        <strong>This station has been deleted.</strong> {station.name} is no longer on{' '}
        {PRODUCT_NAME}.
      </p>
      <p className="small">
        <Link to="/$username" params={{ username }}>
          Other stations by {broadcasterLabel(station.broadcaster)}
        </Link>{' '}
        · <Link to="/">Discover live stations</Link>
      </p>
    </div>
  );
}

/**
 * The station's published replays, newest first (loaded after the station: the player comes
 * first). The owner's list holds unpublished and unfinished ones too; the page shows what anyone hears.
 */
function usePublishedReplays(station: Station, enabled: boolean) {
  return useQuery({
    ...recordingQueries.list(station.id),
    enabled: enabled && !isDemoStationId(station.id),
    meta: { errorToast: false },
    select: (list: Recording[]) => list.filter((r) => r.published && r.status !== 'recording'),
  });
}

/**
 * Off air: when the station was last live (its last start, or its latest replay's if later), or
 * that it has not been on air yet.
 */
function LastLive({ station, latest }: { station: Station; latest: Recording | undefined }) {
  const at = [station.lastActiveAt, latest?.startedAt]
    .filter((t): t is string => !!t)
    .sort()
    .pop();
  return (
    <p className="last-live" data-testid="station-last-live">
      {at ? (
        <>
          Last live{' '}
          <time dateTime={at} title={formatWhen(at)}>
            {formatAgo(at)}
          </time>
          .
        </>
      ) : (
        'Not on air yet.'
      )}
    </p>
  );
}

/** Off air, the one thing that plays: the latest published replay, first. */
function LatestReplay({
  recording,
  username,
  slug,
  stationName,
}: {
  recording: Recording;
  username: string;
  slug: string;
  stationName: string;
}) {
  return (
    <div className="latest-replay" data-testid="latest-replay">
      <p className="eyebrow">Latest replay</p>
      <p className="latest-replay-title">{recording.title}</p>
      <p className="muted small">
        <time dateTime={recording.startedAt}>{formatWhen(recording.startedAt)}</time> ·{' '}
        {formatDuration(recording.durationSeconds)}
      </p>
      <Link
        to="/$username/$stationSlug/replays/$recordingId"
        params={{ username, stationSlug: slug, recordingId: recording.id }}
        className="play-btn"
        aria-label={`Play the replay: ${recording.title} (${stationName})`}
        data-testid="latest-replay-play"
      >
        <PlayIcon />
        <span className="play-label">Play the replay</span>
      </Link>
    </div>
  );
}

export function StationView({ station, gone = false }: { station: Station; gone?: boolean }) {
  const username = station.broadcaster.username;
  const replays = usePublishedReplays(station, !gone);
  const by = (
    <p className="muted station-by">
      <Avatar user={station.broadcaster} size={28} />
      <span>
        by{' '}
        <Link to="/$username" params={{ username }} data-testid="station-broadcaster">
          {broadcasterLabel(station.broadcaster)}
        </Link>
      </span>
    </p>
  );
  if (gone) {
    return (
      <article className="station card" data-testid="station" data-station-id={station.id}>
        <h1 className="station-name" data-testid="station-name">
          {station.name}
        </h1>
        <StationGone station={station} />
      </article>
    );
  }
  const offAir = !isOnAir(station) && !isDemoStationId(station.id);
  const latest = replays.data?.[0];
  return (
    <article className="station-page" data-testid="station" data-station-id={station.id}>
      <div className="station-hero card">
        <StationArt station={station} size="lg" />
        <div className="station-hero-main">
          <StationTop station={station} />
          <h1 className="station-name" data-testid="station-name">
            {station.name}
          </h1>
          {by}
          {offAir ? (
            <>
              <LastLive station={station} latest={latest} />
              {station.nowPlaying ? <NowPlayingView station={station} /> : null}
              {latest ? (
                <LatestReplay
                  recording={latest}
                  username={username}
                  slug={station.slug}
                  stationName={station.name}
                />
              ) : null}
            </>
          ) : (
            <NowPlayingView station={station} />
          )}
          <NextShow station={station} />
          <PlayerControls station={station} />
          {isDemoStationId(station.id) ? null : <FollowButton station={station} />}
        </div>
      </div>
      {replays.isError ? (
        <LoadError
          what="the replays"
          error={replays.error}
          onRetry={() => void replays.refetch()}
          retrying={replays.isFetching}
        />
      ) : (
        <ReplayList recordings={replays.data ?? []} username={username} slug={station.slug} />
      )}
      <ChatPanel station={station} />
      <div className="station-columns">
        {station.description || station.schedule ? (
          <section className="card" aria-labelledby="about-station">
            <h2 id="about-station">About this station</h2>
            {station.description ? (
              <p className="station-description" data-testid="station-description">
                {station.description}
              </p>
            ) : null}
            {station.schedule ? (
              <>
                <h3>Schedule</h3>
                <p className="station-schedule" data-testid="station-schedule">
                  {station.schedule}
                </p>
              </>
            ) : null}
          </section>
        ) : null}
        <StationShare station={station} />
        <PrivateFeeds station={station} />
      </div>
    </article>
  );
}

/** The station's link (copy, or the device's share sheet) and the code to put it on a website. */
function StationShare({ station }: { station: Station }) {
  const username = station.broadcaster.username;
  const url = `${siteOrigin()}/${username}/${station.slug}`;
  const canShare = typeof navigator !== 'undefined' && typeof navigator.share === 'function';
  return (
    <section className="card share-card" aria-labelledby="share-station">
      <h2 id="share-station">Share</h2>
      <div className="share-row">
        <code className="share-url" data-testid="share-url">
          <UrlText url={url} />
        </code>
        <CopyButton text={url} label="Copy link" data-testid="share-copy-link" />
        {canShare ? (
          <button
            type="button"
            className="btn btn-sm"
            onClick={() =>
              void navigator
                .share({ title: station.name, text: stationDescription(station), url })
                .catch(() => undefined)
            }
            data-testid="share-native"
          >
            Share…
          </button>
        ) : null}
      </div>
      <h3>Put it on your website</h3>
      <p className="muted small">
        Paste these two lines where the player should appear.{' '}
        <Link to="/embed">How embedding works</Link>
      </p>
      <EmbedSnippet station={`${username}/${station.slug}`} />
      <StreamUrl username={username} slug={station.slug} onlyIfPublic />
    </section>
  );
}
