import { createFileRoute, Link } from '@tanstack/react-router';
import type { Recording, Station } from '@radiobroadcaster/contracts';
import { broadcasterLabel } from '@radiobroadcaster/player';
import { NotFound } from '../../../../../components/NotFound';
import {
  formatDuration,
  formatSize,
  formatWhen,
  ReplayPlayer,
} from '../../../../../components/Replays';
import { StationArt } from '../../../../../components/StationArt';
import { ReplayChat } from '../../../../../components/together/ReplayChat';
import { recordingAudioPath } from '../../../../../lib/audience-api';
import { grantAt } from '../../../../../lib/listen-grant';
import { errorMessage } from '../../../../../lib/api-error';
import { pageMeta, withSuffix } from '../../../../../lib/seo';
import { recordingQueries } from '../../../../../queries/recordings.queries';
import { stationQueries } from '../../../../../queries/station.queries';

export const REPLAY_NOT_FOUND = 'Replay not found';

interface ReplayLoaderData {
  recording: Recording | null;
  station: Station | null;
  error: string | null;
}

export const Route = createFileRoute('/_site/$username/$stationSlug_/replays/$recordingId')({
  loader: async ({ context: { queryClient }, params }): Promise<ReplayLoaderData> => {
    try {
      const [recording, station] = await Promise.all([
        queryClient.ensureQueryData(
          recordingQueries.byAddress(params.username, params.stationSlug, params.recordingId),
        ),
        queryClient.ensureQueryData(stationQueries.bySlug(params.username, params.stationSlug)),
      ]);
      return { recording, station, error: null };
    } catch (err) {
      return { recording: null, station: null, error: errorMessage(err) || REPLAY_NOT_FOUND };
    }
  },
  head: ({ loaderData }) => {
    const r = loaderData?.recording;
    const s = loaderData?.station;
    return {
      meta:
        r && s
          ? pageMeta({
              title: withSuffix(`${r.title} (replay)`),
              description: `A replay of ${s.name} by @${s.broadcaster.username}, ${formatDuration(r.durationSeconds)}.`,
            })
          : [
              ...pageMeta({ title: withSuffix(REPLAY_NOT_FOUND) }),
              { name: 'robots', content: 'noindex' },
            ],
    };
  },
  component: ReplayPage,
});

function ReplayPage() {
  const { recording, station, error } = Route.useLoaderData();
  if (!recording || !station)
    return <NotFound title={REPLAY_NOT_FOUND} message={error ?? REPLAY_NOT_FOUND} />;
  const username = station.broadcaster.username;
  return (
    <div className="container page">
      <article className="replay card" data-testid="replay" data-recording-id={recording.id}>
        <div className="replay-head">
          <StationArt station={station} size="md" />
          <div>
            <p className="eyebrow">
              Replay ·{' '}
              <Link
                to="/$username/$stationSlug"
                params={{ username, stationSlug: station.slug }}
                data-testid="replay-station"
              >
                {station.name}
              </Link>
            </p>
            <h1 data-testid="replay-title">{recording.title}</h1>
            <p className="muted">
              <time dateTime={recording.startedAt}>{formatWhen(recording.startedAt)}</time> ·{' '}
              <span data-testid="replay-duration">{formatDuration(recording.durationSeconds)}</span>{' '}
              · by {broadcasterLabel(station.broadcaster)}
            </p>
          </div>
        </div>
        {recording.status === 'failed' && recording.error ? (
          <p className="notice notice-warn small" data-testid="replay-note">
            {recording.error}
          </p>
        ) : null}
        {recording.published ? null : (
          <p className="notice small" data-testid="replay-private">
            Only you can hear this replay: it is not published.
          </p>
        )}
        <ReplayPlayer
          recording={recording}
          src={recordingAudioPath(recording.id, false, grantAt(username, station.slug))}
        />
        <ReplayChat recording={recording} grant={grantAt(username, station.slug)} />
        <p className="actions">
          <a
            className="btn"
            href={recordingAudioPath(recording.id, true, grantAt(username, station.slug))}
            download
            data-testid="replay-download"
          >
            Download (Ogg/Opus, {formatSize(recording.sizeBytes)})
          </a>
        </p>
      </article>
    </div>
  );
}
