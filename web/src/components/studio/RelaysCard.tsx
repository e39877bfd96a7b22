import {
  CreateRelayRequest,
  RELAY_LIMITS,
  type Relay,
  type RelayFormat,
  type RelayKind,
  type Station,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { toast } from 'sonner';
import { radioApi } from '../../lib/radio-api';
import { radioKeys, radioQueries } from '../../queries/radio.queries';
import { ConfirmDialog } from '../ConfirmDialog';
import { Field, Form, FormError, SelectField, SubmitButton } from '../form';
import './radio.css';

const KINDS: { id: RelayKind; label: string; hint: string }[] = [
  {
    id: 'icecast',
    label: 'Icecast 2',
    hint: 'The mount is created on the server when the push starts (Icecast 2.4 or later).',
  },
  {
    id: 'azuracast',
    label: 'AzuraCast',
    hint: 'Use the station’s Icecast server address, its mount and a streamer (DJ) login.',
  },
  {
    id: 'shoutcast',
    label: 'Shoutcast 2',
    hint: 'Sources connect on the port after the one given; the mount is the stream id (/1). MP3 only.',
  },
];

function stateLabel(r: Relay, now: number): string {
  const s = r.status;
  switch (s.state) {
    case 'live':
      return 'Pushing';
    case 'connecting':
      return 'Connecting…';
    case 'retrying': {
      const inS = s.retryAt ? Math.max(0, Math.round((Date.parse(s.retryAt) - now) / 1000)) : null;
      return inS === null ? 'Failed' : inS === 0 ? 'Retrying…' : `Retrying in ${inS} s`;
    }
    case 'idle':
      return 'Starts when you go live';
    case 'disabled':
      return r.pausedReason ? 'Paused by the server' : 'Paused';
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Outbound relays: push the live station to Icecast, AzuraCast or Shoutcast 2 servers (the relay
 * networks and CDNs beyond our own nodes). Passwords are write-only; each relay shows its state.
 */
export function RelaysCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const live = station.status === 'live';
  const relays = useQuery({
    ...radioQueries.relays(station.id, live),
    meta: { errorTitle: 'Could not load the relays' },
  });
  const [kind, setKind] = useState<RelayKind>('icecast');
  const [format, setFormat] = useState<RelayFormat>('ogg');
  const [formKey, setFormKey] = useState(0);
  const [removing, setRemoving] = useState<Relay | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const list = relays.data ?? [];

  useEffect(() => {
    if (!list.some((r) => r.status.state === 'retrying')) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [list]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: radioKeys.relays(station.id) });
  const create = useMutation({
    mutationFn: (req: CreateRelayRequest) => radioApi.relays.create(req),
    meta: { errorToast: false },
    onSuccess: async () => {
      await refresh();
      setFormKey((k) => k + 1);
      toast.success('Relay added', {
        description: live ? 'It starts pushing now.' : 'It starts pushing when you go live.',
      });
    },
  });
  const toggle = useMutation({
    mutationFn: (r: Relay) => radioApi.relays.update({ relayId: r.id, enabled: !r.enabled }),
    meta: { errorTitle: 'Could not change the relay' },
    onSuccess: () => refresh(),
  });
  const remove = useMutation({
    mutationFn: (r: Relay) => radioApi.relays.remove(r.id),
    meta: { errorTitle: 'Could not remove the relay' },
    onSuccess: async () => {
      setRemoving(null);
      await refresh();
      toast.success('Relay removed');
    },
  });

  const kindInfo = KINDS.find((k) => k.id === kind)!;
  const full = list.length >= RELAY_LIMITS.perStation;

  return (
    <section className="card" aria-labelledby="relays-title" data-testid="relays">
      <h2 id="relays-title">Relays</h2>
      <p className="muted">
        While you are live, push the station to your own Icecast, AzuraCast or Shoutcast 2 server,
        so it reaches their listeners and relay networks too.
      </p>
      {list.length > 0 ? (
        <ul className="relay-list" aria-live="polite">
          {list.map((r) => (
            <li
              key={r.id}
              className="relay"
              data-testid="relay"
              data-state={r.status.state}
              data-url={r.url}
            >
              <div className="relay-head">
                <span className={`relay-dot relay-${r.status.state}`} aria-hidden="true" />
                <strong className="relay-where">
                  {new URL(r.url).host}
                  {r.mount}
                </strong>
                <span className="muted small">
                  {KINDS.find((k) => k.id === r.kind)?.label} ·{' '}
                  {r.format === 'ogg' ? 'Ogg/Opus' : 'MP3'}
                </span>
              </div>
              <p className="relay-state small" data-testid="relay-state">
                {stateLabel(r, now)}
                {r.status.state === 'live' && r.status.bytesSent > 0
                  ? ` · ${formatBytes(r.status.bytesSent)} sent`
                  : ''}
              </p>
              {r.pausedReason && !r.enabled ? (
                <p className="relay-error small" data-testid="relay-paused-reason">
                  {r.pausedReason}. Remove it and add it again with a public server address.
                </p>
              ) : r.status.lastError && r.status.state !== 'live' ? (
                <p className="relay-error small" data-testid="relay-error">
                  {r.status.lastError}
                </p>
              ) : null}
              <div className="actions">
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => toggle.mutate(r)}
                  data-testid="relay-toggle"
                >
                  {r.enabled ? 'Pause' : 'Resume'}
                </button>
                <button
                  type="button"
                  className="btn btn-sm btn-danger"
                  onClick={() => setRemoving(r)}
                  data-testid="relay-remove"
                >
                  Remove…
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : relays.isSuccess ? (
        <p className="muted small" data-testid="relays-empty">
          No relays yet.
        </p>
      ) : null}

      {full ? (
        <p className="muted small">A station can have at most {RELAY_LIMITS.perStation} relays.</p>
      ) : (
        <Form
          key={formKey}
          schema={CreateRelayRequest}
          toRequest={(v) => ({
            stationId: station.id,
            kind,
            url: v.url ?? '',
            mount: v.mount ?? '',
            username: v.username || 'source',
            password: v.password ?? '',
            format: kind === 'shoutcast' ? 'mp3' : format,
          })}
          mutation={create}
          aria-label="Add a relay"
          className="relay-form"
        >
          <h3 className="small-title">Add a relay</h3>
          <div className="form-row">
            <SelectField
              label="Server type"
              value={kind}
              onChange={(e) => setKind(e.target.value as RelayKind)}
              data-testid="relay-kind"
            >
              {KINDS.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label}
                </option>
              ))}
            </SelectField>
            <SelectField
              label="Format"
              value={kind === 'shoutcast' ? 'mp3' : format}
              disabled={kind === 'shoutcast'}
              onChange={(e) => setFormat(e.target.value as RelayFormat)}
              data-testid="relay-format"
            >
              <option value="ogg">Ogg/Opus (as broadcast)</option>
              <option value="mp3">MP3 128 kbit/s</option>
            </SelectField>
          </div>
          <p className="small muted">{kindInfo.hint}</p>
          <Field
            label="Server address"
            name="url"
            required
            placeholder="http://icecast.example.com:8000"
            inputMode="url"
            autoComplete="off"
            maxLength={RELAY_LIMITS.urlMax}
          />
          <div className="form-row">
            <Field
              label="Mount"
              name="mount"
              required={kind !== 'shoutcast'}
              placeholder={kind === 'shoutcast' ? '/1' : '/live.ogg'}
              autoComplete="off"
              maxLength={RELAY_LIMITS.mountMax}
            />
            <Field
              label="User"
              name="username"
              placeholder="source"
              autoComplete="off"
              maxLength={RELAY_LIMITS.credentialMax}
            />
          </div>
          <Field
            label="Password"
            name="password"
            type="password"
            required
            autoComplete="new-password"
            maxLength={RELAY_LIMITS.credentialMax}
            hint="Stored encrypted; it is never shown again."
          />
          <FormError />
          <div className="actions">
            <SubmitButton pendingLabel="Adding…" data-testid="relay-add">
              Add relay
            </SubmitButton>
          </div>
        </Form>
      )}
      <ConfirmDialog
        open={removing !== null}
        title="Remove this relay?"
        confirmLabel="Remove relay"
        pendingLabel="Removing…"
        pending={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing)}
        onCancel={() => setRemoving(null)}
        data-testid="relay-remove-dialog"
      >
        <p>
          {removing ? `${new URL(removing.url).host}${removing.mount}` : ''} stops receiving the
          station at once, and its saved password is deleted.
        </p>
      </ConfirmDialog>
    </section>
  );
}
