import type { Invite, Station, StationVisibility } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { accessApi, accessKeys } from '../../lib/access-api';
import { CopyButton } from '../CopyButton';
import './access.css';

const VISIBILITY: { value: StationVisibility; label: string; help: string }[] = [
  {
    value: 'public',
    label: 'Public',
    help: 'Anyone can find it (discover, your profile, search engines) and listen.',
  },
  {
    value: 'unlisted',
    label: 'Unlisted',
    help: 'Anyone with the link can listen, but it is not listed anywhere and search engines skip it.',
  },
  {
    value: 'private',
    label: 'Private',
    help: 'Only people you let in can listen: with an invite link, the password, or an account on your listener list. Its name and status stay visible.',
  },
];

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * Who may listen: the visibility switch, invite links, the station password, the listener list,
 * who is listening now and how they got in, and the log of admissions.
 */
export function AccessCard({ station }: { station: Station }) {
  const id = useId();
  const queryClient = useQueryClient();
  const overview = useQuery({
    queryKey: accessKeys.overview(station.id),
    queryFn: () => accessApi.overview(station.id),
    refetchInterval: 5000,
  });
  const invites = useQuery({
    queryKey: accessKeys.invites(station.id),
    queryFn: () => accessApi.invites(station.id),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: accessKeys.overview(station.id) });
    void queryClient.invalidateQueries({ queryKey: accessKeys.invites(station.id) });
  };
  const visibility = useMutation({
    mutationFn: (v: StationVisibility) => accessApi.setVisibility(station.id, v),
    meta: { errorTitle: 'Could not change who can listen' },
    onSuccess: (_d, v) => {
      toast.success(
        v === 'private'
          ? 'Station is private: listeners without access hear a 10 s notice, then stop'
          : `Station is ${v}`,
      );
      refresh();
    },
  });
  const current = visibility.isPending ? visibility.variables : overview.data?.visibility;
  const page = `/${station.broadcaster.username}/${station.slug}`;

  return (
    <section className="card access-card" aria-labelledby={`${id}-title`} data-testid="access-card">
      <h2 id={`${id}-title`}>Who can listen</h2>
      <fieldset className="access-visibility" disabled={!overview.data || visibility.isPending}>
        <legend className="sr-only">Visibility</legend>
        {VISIBILITY.map((v) => (
          <label key={v.value} className="access-option">
            <input
              type="radio"
              name={`${id}-visibility`}
              value={v.value}
              checked={current === v.value}
              onChange={() => visibility.mutate(v.value)}
              data-testid={`visibility-${v.value}`}
            />
            <span>
              <strong>{v.label}</strong>
              <span className="muted small"> {v.help}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="small">
        <a href={`/embed${page}`} target="_blank" rel="noreferrer" data-testid="access-preview">
          Preview as a stranger sees it
        </a>{' '}
        <span className="muted">(the player, signed out, without any invite)</span>
      </p>
      {current === 'private' ? (
        <>
          <InvitesSection stationId={station.id} invites={invites.data ?? []} onChange={refresh} />
          <PasswordSection
            stationId={station.id}
            hasPassword={overview.data?.hasPassword ?? false}
            onChange={refresh}
          />
          <ListenersSection
            stationId={station.id}
            listeners={overview.data?.listeners ?? []}
            onChange={refresh}
          />
        </>
      ) : null}
      <h3>Listening now</h3>
      {overview.data?.listening.length ? (
        <ul className="access-list" data-testid="access-listening">
          {overview.data.listening.map((l) => (
            <li key={`${l.listener}-${l.since}`}>
              <code>{l.listener}</code> · {l.via}
              {l.label ? ` (${l.label})` : ''} · {l.transport} · since {when(l.since)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">Nobody on this server right now.</p>
      )}
      {current === 'private' ? (
        <>
          <h3>Admissions</h3>
          {overview.data?.admissions.length ? (
            <ul className="access-list" data-testid="access-admissions">
              {overview.data.admissions.slice(0, 20).map((a, i) => (
                <li key={i}>
                  {when(a.at)} · <code>{a.listener}</code> by {a.via}
                  {a.label ? ` (${a.label})` : ''}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted small">No one has been let in yet.</p>
          )}
        </>
      ) : null}
    </section>
  );
}

function InvitesSection({
  stationId,
  invites,
  onChange,
}: {
  stationId: string;
  invites: Invite[];
  onChange: () => void;
}) {
  const [label, setLabel] = useState('');
  const [maxUses, setMaxUses] = useState('');
  const [days, setDays] = useState('');
  const create = useMutation({
    mutationFn: () =>
      accessApi.createInvite({
        stationId,
        ...(label.trim() ? { label: label.trim() } : {}),
        ...(maxUses ? { maxUses: Number(maxUses) } : {}),
        ...(days
          ? { expiresAt: new Date(Date.now() + Number(days) * 86_400_000).toISOString() }
          : {}),
      }),
    meta: { errorTitle: 'Could not create the invite link' },
    onSuccess: () => {
      setLabel('');
      setMaxUses('');
      setDays('');
      toast.success('Invite link created');
      onChange();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => accessApi.revokeInvite(id),
    meta: { errorTitle: 'Could not revoke the invite link' },
    onSuccess: () => {
      toast.success('Invite link revoked: its listeners are stopped');
      onChange();
    },
  });
  const revokeAll = useMutation({
    mutationFn: () => accessApi.revokeAll(stationId),
    meta: { errorTitle: 'Could not revoke the invite links' },
    onSuccess: (r) => {
      toast.success(`${r.revoked} invite link${r.revoked === 1 ? '' : 's'} revoked`);
      onChange();
    },
  });
  const active = invites.filter((i) => !i.revokedAt);
  return (
    <>
      <h3>Invite links</h3>
      <form
        className="access-row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <input
          className="input"
          aria-label="Label (optional)"
          placeholder="Label, e.g. members"
          maxLength={60}
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          data-testid="invite-label"
        />
        <input
          className="input"
          aria-label="Most listeners (optional)"
          placeholder="Max listeners"
          type="number"
          min={1}
          value={maxUses}
          onChange={(e) => setMaxUses(e.target.value)}
        />
        <input
          className="input"
          aria-label="Expires after days (optional)"
          placeholder="Days valid"
          type="number"
          min={1}
          value={days}
          onChange={(e) => setDays(e.target.value)}
        />
        <button
          type="submit"
          className="btn btn-primary"
          disabled={create.isPending}
          data-testid="invite-create"
        >
          Create link
        </button>
      </form>
      {active.length ? (
        <ul className="access-list" data-testid="invite-list">
          {active.map((i) => (
            <li key={i.id} data-testid="invite">
              <strong>{i.label || 'Invite'}</strong>{' '}
              <span className="muted small">
                {i.uses}
                {i.maxUses ? `/${i.maxUses}` : ''} listener{i.uses === 1 ? '' : 's'}
                {i.expiresAt ? ` · until ${when(i.expiresAt)}` : ''}
              </span>{' '}
              <CopyButton text={i.url} label="Copy link" data-testid="invite-copy" />{' '}
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => revoke.mutate(i.id)}
                data-testid="invite-revoke"
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">No invite links yet.</p>
      )}
      {active.length > 1 ? (
        <button type="button" className="btn btn-sm" onClick={() => revokeAll.mutate()}>
          Revoke all links
        </button>
      ) : null}
    </>
  );
}

function PasswordSection({
  stationId,
  hasPassword,
  onChange,
}: {
  stationId: string;
  hasPassword: boolean;
  onChange: () => void;
}) {
  const [password, setPassword] = useState('');
  const save = useMutation({
    mutationFn: (value: string | null) => accessApi.setPassword({ stationId, password: value }),
    meta: { errorTitle: 'Could not save the password' },
    onSuccess: (r) => {
      setPassword('');
      toast.success(
        r.hasPassword
          ? 'Password saved: listeners who used the old one are stopped'
          : 'Password removed',
      );
      onChange();
    },
  });
  return (
    <>
      <h3>Password</h3>
      <p className="muted small">
        {hasPassword
          ? 'Set. Listeners who know it can listen. Changing it stops those who used the old one.'
          : 'None. Set one to let listeners in with a password (never stored in clear).'}
      </p>
      <form
        className="access-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (password.length >= 4) save.mutate(password);
        }}
      >
        <input
          className="input"
          type="password"
          autoComplete="new-password"
          aria-label="New station password"
          placeholder={hasPassword ? 'New password' : 'Password (4+ characters)'}
          minLength={4}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid="station-password"
        />
        <button
          type="submit"
          className="btn"
          disabled={save.isPending}
          data-testid="station-password-save"
        >
          {hasPassword ? 'Change' : 'Set password'}
        </button>
        {hasPassword ? (
          <button type="button" className="btn btn-sm" onClick={() => save.mutate(null)}>
            Remove
          </button>
        ) : null}
      </form>
    </>
  );
}

function ListenersSection({
  stationId,
  listeners,
  onChange,
}: {
  stationId: string;
  listeners: { id: string; email: string }[];
  onChange: () => void;
}) {
  const [email, setEmail] = useState('');
  const add = useMutation({
    mutationFn: () => accessApi.addListener({ stationId, email }),
    meta: { errorTitle: 'Could not add the listener' },
    onSuccess: (l) => {
      setEmail('');
      toast.success(`Invitation mailed to ${l.email}`);
      onChange();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => accessApi.removeListener(id),
    meta: { errorTitle: 'Could not remove the listener' },
    onSuccess: () => {
      toast.success('Removed: they are stopped if listening');
      onChange();
    },
  });
  return (
    <>
      <h3>Listener list</h3>
      <p className="muted small">People who sign in with these addresses can listen.</p>
      <form
        className="access-row"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <input
          className="input"
          type="email"
          aria-label="Listener e-mail"
          placeholder="name@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          data-testid="listener-email"
        />
        <button type="submit" className="btn" disabled={add.isPending}>
          Invite by e-mail
        </button>
      </form>
      {listeners.length ? (
        <ul className="access-list" data-testid="listener-list">
          {listeners.map((l) => (
            <li key={l.id}>
              {l.email}{' '}
              <button type="button" className="btn btn-sm" onClick={() => remove.mutate(l.id)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
