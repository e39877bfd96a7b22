import {
  RECORDING_LIMITS,
  type Recording,
  type RecordingSetting,
  type Station,
  type StationVisibility,
  UpdateRecordingRequest,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { audienceApi, recordingAudioPath } from '../../lib/audience-api';
import { recordingKeys, recordingQueries } from '../../queries/recordings.queries';
import { ConfirmDialog } from '../ConfirmDialog';
import { Field, Form, FormError, SelectField, SubmitButton } from '../form';
import { formatDuration, formatSize, formatWhen } from '../Replays';
import '../audience.css';
import { isOnAir } from '../StationView';

/** Who may play a replay, in plain words (its own setting, else the station's). */
const VISIBILITY_TEXT: Record<StationVisibility, string> = {
  public: 'Public: anyone, listed',
  unlisted: 'Unlisted: anyone with its link',
  private: 'Private: your listeners only',
};
const VISIBILITY_PILL: Record<StationVisibility, { text: string; cls: string }> = {
  public: { text: 'Public', cls: 'pill-ok' },
  unlisted: { text: 'Unlisted', cls: 'pill-wait' },
  private: { text: 'Private', cls: 'pill-wait' },
};

/** Retention choices; a value set through the API that is not here is shown as well. */
const RETENTION = [null, 7, 30, 90, 365] as const;

function retentionText(days: number | null): string {
  return days === null ? 'Keep them until I delete them' : `Delete them after ${days} days`;
}

/**
 * Recording of the station's broadcasts (off by default), how long recordings are kept, and the
 * recordings themselves: rename, choose who may play each (public, unlisted, private, or as the
 * station), delete. A recording that stopped early (a
 * full disk) says so here while the broadcast goes on.
 */
export function RecordingsCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const onAir = isOnAir(station);
  const setting = useQuery(recordingQueries.setting(station.id));
  const list = useQuery({
    ...recordingQueries.list(station.id),
    // While on air a recording may start, stop early or finish: follow it.
    refetchInterval: (q) =>
      onAir || q.state.data?.some((r) => r.status === 'recording') ? 3_000 : false,
  });
  const save = useMutation({
    mutationFn: (s: Omit<RecordingSetting, 'stationId'>) =>
      audienceApi.recordings.saveSetting({ stationId: station.id, ...s }),
    meta: { errorTitle: 'Could not save the recording setting' },
    // The switch moves at once; a refusal puts it back.
    onMutate: (next) =>
      queryClient.setQueryData(recordingKeys.setting(station.id), {
        stationId: station.id,
        ...next,
      }),
    onError: () => queryClient.invalidateQueries({ queryKey: recordingKeys.setting(station.id) }),
    onSettled: () => setShownEnabled(null),
    onSuccess: (s) => {
      queryClient.setQueryData(recordingKeys.setting(station.id), s);
      toast.success(s.enabled ? 'Recording is on' : 'Recording is off', {
        description: s.enabled
          ? 'Your next broadcasts are recorded and published as replays.'
          : 'Broadcasts are no longer recorded.',
      });
    },
  });
  // What the switch shows from the click until the save settles: React puts a controlled checkbox
  // back at once, before the query cache (updated in onMutate, a tick later) catches up.
  const [shownEnabled, setShownEnabled] = useState<boolean | null>(null);
  const toggleId = useId();
  const s = setting.data;
  const recordings = list.data ?? [];
  const latest = recordings[0];
  const options: (number | null)[] = [...RETENTION];
  if (s && !options.includes(s.retentionDays)) options.push(s.retentionDays);

  return (
    <section className="card" aria-labelledby="recordings-title" data-testid="studio-recordings">
      <h2 id="recordings-title">Replays</h2>
      <p className="muted small">
        Recording is off unless you turn it on: everyone you put on air is recorded too (ask your
        guests first), and replays take disk space. When on, each broadcast is saved as Ogg/Opus and
        published as a replay on your station page when it ends, as visible as your station; choose
        who may play each one below.
      </p>
      {latest?.status === 'failed' && latest.error ? (
        <p className="notice notice-warn" role="alert" data-testid="recording-problem">
          <strong>The {latest.endedAt ? 'last' : 'current'} recording stopped.</strong>{' '}
          {latest.error}
        </p>
      ) : null}
      {s ? (
        <div className="recording-settings">
          <label className="switch" htmlFor={toggleId}>
            <input
              id={toggleId}
              type="checkbox"
              role="switch"
              className="switch-input"
              checked={shownEnabled ?? s.enabled}
              disabled={save.isPending}
              onChange={(e) => {
                setShownEnabled(e.target.checked);
                save.mutate({ enabled: e.target.checked, retentionDays: s.retentionDays });
              }}
              data-testid="recording-enabled"
            />
            Record my broadcasts
          </label>
          <SelectField
            label="Old replays"
            value={s.retentionDays === null ? '' : String(s.retentionDays)}
            disabled={save.isPending}
            onChange={(e) =>
              save.mutate({
                enabled: s.enabled,
                retentionDays: e.target.value === '' ? null : Number(e.target.value),
              })
            }
            data-testid="recording-retention"
          >
            {options.map((d) => (
              <option key={d ?? 'forever'} value={d === null ? '' : String(d)}>
                {retentionText(d)}
              </option>
            ))}
          </SelectField>
        </div>
      ) : (
        <p className="muted small">Loading…</p>
      )}
      {list.isSuccess && recordings.length === 0 ? (
        <p className="muted small" data-testid="recordings-empty">
          No replays yet.
        </p>
      ) : (
        <ul className="list recordings-list" aria-label="Replays">
          {recordings.map((r) => (
            <RecordingRow key={r.id} recording={r} station={station} />
          ))}
        </ul>
      )}
    </section>
  );
}

const STATUS: Record<Recording['status'], { text: string; cls: string }> = {
  recording: { text: 'Recording…', cls: 'pill-wait' },
  ready: { text: 'Ready', cls: 'pill-ok' },
  failed: { text: 'Stopped early', cls: 'pill-bad' },
};

function RecordingRow({ recording: r, station }: { recording: Recording; station: Station }) {
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: recordingKeys.all(station.id) });
  const update = useMutation({
    mutationFn: (req: UpdateRecordingRequest) => audienceApi.recordings.update(req),
    meta: { errorToast: false },
    onSuccess: async (next, req) => {
      setRenaming(false);
      await refresh();
      toast.success(
        req.visibility === undefined
          ? 'Replay renamed'
          : `Replay now ${VISIBILITY_PILL[next.visibility].text.toLowerCase()}`,
        { description: next.title },
      );
    },
  });
  const remove = useMutation({
    mutationFn: () => audienceApi.recordings.remove(r.id),
    meta: { errorTitle: 'Could not delete the replay' },
    onSuccess: async () => {
      setConfirming(false);
      await refresh();
      toast.success('Replay deleted', { description: r.title });
    },
  });
  const status = STATUS[r.status];
  const going = r.status === 'recording';
  return (
    <li
      className="recording"
      data-testid="recording"
      data-recording-id={r.id}
      data-status={r.status}
      data-published={r.published}
      data-visibility={r.visibility}
    >
      <div className="grow">
        {going ? (
          <strong data-testid="recording-title">{r.title}</strong>
        ) : (
          <Link
            to="/$username/$stationSlug/replays/$recordingId"
            params={{
              username: station.broadcaster.username,
              stationSlug: station.slug,
              recordingId: r.id,
            }}
            data-testid="recording-title"
          >
            <strong>{r.title}</strong>
          </Link>
        )}
        <p className="muted small recording-meta">
          {formatWhen(r.startedAt)} · {formatDuration(r.durationSeconds)} ·{' '}
          {formatSize(r.sizeBytes)} <span className={`pill ${status.cls}`}>{status.text}</span>{' '}
          {going ? null : (
            <span
              className={`pill ${VISIBILITY_PILL[r.visibility].cls}`}
              data-testid="recording-visibility-pill"
            >
              {VISIBILITY_PILL[r.visibility].text}
            </span>
          )}
        </p>
        {r.status === 'failed' && r.error ? (
          <p className="small field-error" data-testid="recording-error">
            {r.error}
          </p>
        ) : null}
        {renaming ? (
          <Form
            schema={UpdateRecordingRequest}
            toRequest={(v) => ({ recordingId: r.id, title: v.title ?? '' })}
            mutation={update}
            aria-label={`Rename ${r.title}`}
            className="inline-form"
          >
            <Field
              label="Title"
              name="title"
              maxLength={RECORDING_LIMITS.titleMax}
              defaultValue={r.title}
              hint="Empty: the station's name and the date."
            />
            <FormError />
            <SubmitButton pendingLabel="Saving…" data-testid="recording-rename-save">
              Save
            </SubmitButton>
            <button type="button" className="btn" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </Form>
        ) : null}
      </div>
      {going ? null : (
        <div className="actions recording-actions">
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => setRenaming(true)}
            disabled={renaming}
            data-testid="recording-rename"
          >
            Rename
          </button>
          <label className="recording-visibility">
            <span className="sr-only">Who can play {r.title}</span>
            <select
              className="select select-sm"
              value={r.visibilitySetting ?? ''}
              disabled={update.isPending}
              onChange={(e) =>
                update.mutate({
                  recordingId: r.id,
                  visibility: e.target.value === '' ? null : (e.target.value as StationVisibility),
                })
              }
              data-testid="recording-visibility"
            >
              <option value="">
                As the station ({VISIBILITY_PILL[station.visibility ?? 'public'].text.toLowerCase()}
                )
              </option>
              {(['public', 'unlisted', 'private'] as const).map((v) => (
                <option key={v} value={v}>
                  {VISIBILITY_TEXT[v]}
                </option>
              ))}
            </select>
          </label>
          <a className="btn btn-sm" href={recordingAudioPath(r.id, true)} download>
            Download
          </a>
          <button
            type="button"
            className="btn btn-sm btn-danger"
            onClick={() => setConfirming(true)}
            data-testid="recording-delete"
          >
            Delete…
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Delete “${r.title}”?`}
        confirmLabel="Delete replay"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
        returnFocus={() => document.querySelector<HTMLElement>('#recordings-title')}
        data-testid="recording-delete-dialog"
      >
        <p>The file is deleted and the replay's page stops working. This cannot be undone.</p>
      </ConfirmDialog>
    </li>
  );
}
