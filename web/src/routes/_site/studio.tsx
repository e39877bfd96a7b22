import { LIMITS, type Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { Link, createFileRoute, useNavigate } from '@tanstack/react-router';
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { toast } from 'sonner';
import { z } from 'zod';
import { AuthRequiredOrError } from '../../components/AuthRequired';
import { useLiveStation } from '../../components/LiveStation';
import { StatusBadge, isLive, listenerLabel } from '../../components/StationView';
import { api } from '../../lib/api';
import { errorMessage } from '../../lib/api-error';
import { requireSession } from '../../lib/auth';
import { pageMeta, withSuffix } from '../../lib/seo';
import { rememberStationToken } from '../../lib/station-tokens';
import {
  MESSAGES,
  canCaptureDisplay,
  useBroadcast,
  type AudioSource,
} from '../../lib/use-broadcast';
import { stationKeys, stationQueries } from '../../queries/station.queries';

const StudioSearch = z.object({
  station: z.string().optional().catch(undefined),
});

export const Route = createFileRoute('/_site/studio')({
  validateSearch: StudioSearch,
  beforeLoad: async ({ context: { queryClient } }) => ({
    session: await requireSession(queryClient),
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
        <div className="panel">
          {creating || !selected ? (
            <CreateStation username={username} onCreated={select} />
          ) : (
            <StationStudio key={selected.id} initial={selected} username={username} />
          )}
        </div>
      </div>
    </div>
  );
}

function TextField(props: {
  label: string;
  name: string;
  defaultValue?: string;
  required?: boolean;
  maxLength?: number;
  hint?: ReactNode;
  multiline?: boolean;
  pattern?: string;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const common = {
    id,
    name: props.name,
    defaultValue: props.defaultValue,
    required: props.required,
    maxLength: props.maxLength,
    'aria-describedby': props.hint ? hintId : undefined,
    'data-testid': `field-${props.name}`,
  };
  return (
    <div className="field">
      <label htmlFor={id}>
        {props.label}
        {props.required ? null : <span className="muted small"> (optional)</span>}
      </label>
      {props.multiline ? (
        <textarea className="textarea" {...common} />
      ) : (
        <input className="input" pattern={props.pattern} autoComplete="off" {...common} />
      )}
      {props.hint ? (
        <span id={hintId} className="hint">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}

function readForm(e: FormEvent<HTMLFormElement>): Record<string, string> {
  e.preventDefault();
  const data = new FormData(e.currentTarget);
  return Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v).trim()]));
}

function CreateStation({
  username,
  onCreated,
}: {
  username: string;
  onCreated: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (v: Record<string, string>) =>
      api.stations.create({
        name: v.name ?? '',
        slug: v.slug || undefined,
        description: v.description || undefined,
      }),
    meta: { errorToast: false },
    onSuccess: async ({ station, streamToken }) => {
      rememberStationToken(station.id, streamToken);
      await queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) });
      toast.success('Station created', { description: station.name });
      onCreated(station.id);
    },
  });
  return (
    <section className="card" aria-labelledby="create-title">
      <h2 id="create-title">New station</h2>
      <form onSubmit={(e) => create.mutate(readForm(e))} data-testid="create-station-form">
        <TextField label="Name" name="name" required maxLength={LIMITS.stationNameMax} />
        <TextField
          label="Slug"
          name="slug"
          maxLength={LIMITS.stationSlugMax}
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          hint={`The address: /${username}/your-slug. Lowercase letters, digits and single dashes; made from the name when empty.`}
        />
        <TextField
          label="Description"
          name="description"
          multiline
          maxLength={LIMITS.descriptionMax}
        />
        {create.isError ? (
          <p className="form-error" role="alert" data-testid="create-error">
            {errorMessage(create.error)}
          </p>
        ) : null}
        <button
          type="submit"
          className="btn btn-primary"
          disabled={create.isPending}
          data-testid="create-station"
        >
          {create.isPending ? 'Creating…' : 'Create station'}
        </button>
      </form>
    </section>
  );
}

function StationStudio({ initial, username }: { initial: Station; username: string }) {
  const station = useLiveStation(initial);
  return (
    <>
      <OnAirCard station={station} username={username} />
      <BroadcastCard station={station} />
      <NowPlayingCard station={station} />
      <EditStationCard station={station} username={username} />
      <EndStationCard station={station} username={username} />
    </>
  );
}

function OnAirCard({ station, username }: { station: Station; username: string }) {
  return (
    <section className="card" aria-labelledby="onair-title" data-testid="studio-status">
      <div className="station-top">
        <StatusBadge station={station} />
        <span
          className="listeners"
          data-testid="station-listeners"
          data-count={station.viewerCount}
          aria-live="polite"
        >
          {listenerLabel(station.viewerCount)}
        </span>
      </div>
      <h2 id="onair-title" className="station-name" data-testid="station-name">
        {station.name}
      </h2>
      <dl className="kv">
        <dt>Public page</dt>
        <dd>
          <Link
            to="/$username/$stationSlug"
            params={{ username, stationSlug: station.slug }}
            data-testid="studio-public-link"
          >
            /{username}/{station.slug}
          </Link>
        </dd>
        <dt>Embed</dt>
        <dd>
          <code>{`<radio-player station="${username}/${station.slug}"></radio-player>`}</code>
        </dd>
      </dl>
    </section>
  );
}

const STATE_TEXT = {
  idle: 'Not broadcasting from this browser.',
  capturing: 'Choose what to share…',
  connecting: 'Connecting…',
  live: 'On air from this browser.',
  reconnecting: 'Connection unstable, reconnecting…',
} as const;

function BroadcastCard({ station }: { station: Station }) {
  const [source, setSource] = useState<AudioSource>(canCaptureDisplay() ? 'display' : 'microphone');
  const { state, message, level, sourceLabel, start, stop } = useBroadcast(station.id);
  const busy = state !== 'idle';
  const ended = station.status === 'ended';
  // Ending the station (here or elsewhere) takes it off the air: stop publishing at once instead of
  // waiting for the connection to time out.
  useEffect(() => {
    if (ended && busy) void stop();
  }, [ended, busy, stop]);

  return (
    <section className="card" aria-labelledby="broadcast-title" data-testid="broadcast">
      <h2 id="broadcast-title">Go live</h2>
      <fieldset className="source-options" disabled={busy}>
        <legend>Audio source</legend>
        <label className="radio-card">
          <input
            type="radio"
            name="source"
            value="display"
            checked={source === 'display'}
            onChange={() => setSource('display')}
            data-testid="source-display"
          />
          <span>
            <strong>Tab, window or screen</strong>
            <br />
            <span className="muted small">
              Shares what your computer plays. Tick “Share audio”.
            </span>
          </span>
        </label>
        <label className="radio-card">
          <input
            type="radio"
            name="source"
            value="microphone"
            checked={source === 'microphone'}
            onChange={() => setSource('microphone')}
            data-testid="source-microphone"
          />
          <span>
            <strong>Microphone</strong>
            <br />
            <span className="muted small">Or any audio input, such as a mixer.</span>
          </span>
        </label>
      </fieldset>
      {source === 'display' && !canCaptureDisplay() ? (
        <p className="notice notice-warn" role="note">
          {MESSAGES.noSystemAudio}
        </p>
      ) : null}
      {message ? (
        <p className="notice notice-warn" role="alert" data-testid="broadcast-message">
          {message}
        </p>
      ) : null}
      <p role="status" data-testid="broadcast-state" data-state={state}>
        {STATE_TEXT[state]}
        {sourceLabel && busy ? <span className="muted small"> Source: {sourceLabel}</span> : null}
      </p>
      {busy ? (
        <div
          className="meter"
          role="meter"
          aria-label="Input level"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(level * 100)}
        >
          <span style={{ width: `${Math.round(level * 100)}%` }} />
        </div>
      ) : null}
      <div className="actions">
        {busy ? (
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => void stop()}
            data-testid="stop-broadcast"
          >
            Stop broadcasting
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-primary btn-lg"
            onClick={() => void start(source)}
            disabled={ended}
            data-testid="go-live"
          >
            Go live
          </button>
        )}
      </div>
      {ended ? <p className="muted small">This station has ended.</p> : null}
    </section>
  );
}

function NowPlayingCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const applyStation = (s: Station) => {
    queryClient.setQueryData(stationKeys.detail(s.id), s);
  };
  const set = useMutation({
    mutationFn: (v: Record<string, string>) =>
      api.stations.setNowPlaying({
        stationId: station.id,
        track: v.track ?? '',
        artist: v.artist || undefined,
        album: v.album || undefined,
      }),
    meta: { errorTitle: 'Could not set now playing' },
    onSuccess: (s) => {
      if (s && typeof s === 'object' && 'id' in s) applyStation(s);
      void queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) });
      toast.success('Now playing updated');
    },
  });
  const clear = useMutation({
    mutationFn: () => api.stations.clearNowPlaying(station.id),
    meta: { errorTitle: 'Could not clear now playing' },
    onSuccess: (s) => {
      if (s && typeof s === 'object' && 'id' in s) applyStation(s);
      void queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) });
      toast.success('Now playing cleared');
    },
  });
  const np = station.nowPlaying;
  return (
    <section className="card" aria-labelledby="np-title" data-testid="studio-now-playing">
      <h2 id="np-title">Now playing</h2>
      <p className="muted" data-testid="studio-now-playing-current">
        {np
          ? `Listeners see: ${np.track}${np.artist ? ` — ${np.artist}` : ''}${np.album ? ` (${np.album})` : ''}`
          : 'Nothing announced.'}
      </p>
      <form
        key={np ? `${np.track}|${np.artist}|${np.album}` : 'none'}
        onSubmit={(e) => set.mutate(readForm(e))}
      >
        <TextField
          label="Track"
          name="track"
          required
          maxLength={LIMITS.nowPlayingFieldMax}
          defaultValue={np?.track ?? ''}
        />
        <div className="form-row">
          <TextField
            label="Artist"
            name="artist"
            maxLength={LIMITS.nowPlayingFieldMax}
            defaultValue={np?.artist ?? ''}
          />
          <TextField
            label="Album"
            name="album"
            maxLength={LIMITS.nowPlayingFieldMax}
            defaultValue={np?.album ?? ''}
          />
        </div>
        <div className="actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={set.isPending}
            data-testid="now-playing-set"
          >
            Update now playing
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => clear.mutate()}
            disabled={!np || clear.isPending}
            data-testid="now-playing-clear"
          >
            Clear
          </button>
        </div>
      </form>
    </section>
  );
}

function EditStationCard({ station, username }: { station: Station; username: string }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (v: Record<string, string>) =>
      api.stations.update({
        stationId: station.id,
        name: v.name !== station.name ? v.name : undefined,
        slug: v.slug && v.slug !== station.slug ? v.slug : undefined,
        description: v.description !== station.description ? v.description : undefined,
      }),
    meta: { errorToast: false },
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) }),
        queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) }),
      ]);
      toast.success('Station saved');
    },
  });
  return (
    <section className="card" aria-labelledby="edit-title">
      <h2 id="edit-title">Station details</h2>
      <form
        key={`${station.name}|${station.slug}|${station.description}`}
        onSubmit={(e) => update.mutate(readForm(e))}
        data-testid="edit-station-form"
      >
        <TextField
          label="Name"
          name="name"
          required
          maxLength={LIMITS.stationNameMax}
          defaultValue={station.name}
        />
        <TextField
          label="Slug"
          name="slug"
          required
          maxLength={LIMITS.stationSlugMax}
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          defaultValue={station.slug}
          hint="Changing it changes the public address; old links stop working."
        />
        <TextField
          label="Description"
          name="description"
          multiline
          maxLength={LIMITS.descriptionMax}
          defaultValue={station.description}
        />
        {update.isError ? (
          <p className="form-error" role="alert">
            {errorMessage(update.error)}
          </p>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
      </form>
    </section>
  );
}

function EndStationCard({ station, username }: { station: Station; username: string }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const end = useMutation({
    mutationFn: () => api.stations.end(station.id),
    meta: { errorTitle: 'Could not end the station' },
    onSuccess: async () => {
      setConfirming(false);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) }),
        queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) }),
      ]);
      toast.success('Station ended');
    },
  });
  useEffect(() => setConfirming(false), [station.id]);
  const live = isLive(station);
  return (
    <section className="card" aria-labelledby="end-title">
      <h2 id="end-title">End the broadcast</h2>
      <p className="muted">
        Ending disconnects every listener and takes the station off the air
        {live ? '' : ' (it is not live right now)'}.
      </p>
      {confirming ? (
        <div className="actions" role="group" aria-label="Confirm ending the station">
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => end.mutate()}
            disabled={end.isPending}
            data-testid="end-station-confirm"
          >
            Yes, end it
          </button>
          <button type="button" className="btn" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => setConfirming(true)}
          data-testid="end-station"
        >
          End station
        </button>
      )}
    </section>
  );
}
