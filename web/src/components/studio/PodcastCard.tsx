import {
  PODCAST_LIMITS,
  type PodcastEpisode,
  type PodcastResponse,
  type Station,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api';
import { errorMessage } from '../../lib/api-error';
import { CopyButton } from '../CopyButton';
import '../follow/follow.css';

const key = (stationId: string) => ['stations', stationId, 'podcast'] as const;

/** The station's replays as a podcast: the feed's address, and each episode's title, notes and place in the feed. */
export function PodcastCard({ station }: { station: Station }) {
  const id = useId();
  const podcast = useQuery({
    queryKey: key(station.id),
    queryFn: () =>
      apiFetch<PodcastResponse>(`/api/stations/${encodeURIComponent(station.id)}/podcast`),
  });
  const data = podcast.data;
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="studio-podcast">
      <h2 id={`${id}-title`}>Podcast</h2>
      <p className="muted small">
        Your published replays as a podcast feed: paste its address into any podcast app, or submit
        it to a directory.
      </p>
      {data ? (
        <>
          <div className="share-row">
            <code className="share-url" data-testid="podcast-feed-url">
              {data.feedUrl}
            </code>
            <CopyButton text={data.feedUrl} label="Copy feed URL" />
          </div>
          {data.episodes.length === 0 ? (
            <p className="muted">No replays yet: turn recording on and go live.</p>
          ) : (
            <ul className="schedule-list" aria-label="Episodes">
              {data.episodes.map((e) => (
                <EpisodeRow key={e.recordingId} stationId={station.id} episode={e} />
              ))}
            </ul>
          )}
        </>
      ) : null}
    </section>
  );
}

function EpisodeRow({ stationId, episode }: { stationId: string; episode: PodcastEpisode }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(episode.title);
  const [notes, setNotes] = useState(episode.notes);
  const save = useMutation({
    mutationFn: (changes: { title?: string; notes?: string; inFeed?: boolean }) =>
      apiFetch<PodcastEpisode>('/api/stations/podcast/episodes/update', 'POST', {
        recordingId: episode.recordingId,
        ...changes,
      }),
    meta: { errorToast: false },
    onSuccess: (e) => {
      toast.success(e.inFeed ? 'Episode saved' : 'Episode dropped from the feed');
      void queryClient.invalidateQueries({ queryKey: key(stationId) });
    },
  });
  return (
    <li className="schedule-item" data-testid="podcast-episode">
      <form
        className="podcast-episode-form"
        onSubmit={(ev) => {
          ev.preventDefault();
          save.mutate({ title, notes });
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-t`}>Episode title</label>
          <input
            id={`${id}-t`}
            className="input"
            required
            maxLength={PODCAST_LIMITS.titleMax}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-n`}>Show notes</label>
          <textarea
            id={`${id}-n`}
            className="textarea"
            rows={2}
            maxLength={PODCAST_LIMITS.notesMax}
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
          />
        </div>
        <p className="meta">
          {new Date(episode.startedAt).toLocaleString()} ·{' '}
          {episode.publiclyListed
            ? episode.inFeed
              ? 'in the feed'
              : 'dropped from the feed'
            : 'not published: not in the feed'}
        </p>
        {save.error ? (
          <p className="field-error" role="alert">
            {errorMessage(save.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="btn btn-sm" disabled={save.isPending}>
            Save
          </button>
          <button
            type="button"
            className="btn btn-sm"
            disabled={save.isPending}
            onClick={() => save.mutate({ inFeed: !episode.inFeed })}
            data-testid="podcast-episode-toggle"
          >
            {episode.inFeed ? 'Drop from feed' : 'Put back in feed'}
          </button>
        </div>
      </form>
    </li>
  );
}
