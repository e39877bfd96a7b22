import type { FollowSettings, FollowState, Station } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../lib/api-error';
import { sessionQueryOptions } from '../../queries/session.queries';
import { stationQueries } from '../../queries/station.queries';
import { NextShow } from '../NextShow';
import { isOnAir } from '../StationView';
import { followApi, followKeys, SETTING_LABELS } from './follow-api';
import { pushSupported, usePushSubscription } from './push';
import './follow.css';

/**
 * Follow a station: signed in, one press (and switches for what to be told, and how); without an
 * account, by e-mail with a confirmation link.
 */
export function FollowButton({ station }: { station: Station }) {
  const session = useQuery(sessionQueryOptions());
  if (session.isPending) return null;
  return session.data ? <AccountFollow station={station} /> : <GuestFollow station={station} />;
}

function AccountFollow({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const key = followKeys.state(station.id);
  const state = useQuery({ queryKey: key, queryFn: () => followApi.state(station.id) });
  const apply = (s: FollowState | undefined) =>
    queryClient.setQueryData<FollowState>(key, s ?? { ...state.data!, following: false });
  const push = usePushSubscription();
  const follow = useMutation({
    mutationFn: () => followApi.follow(station.id),
    meta: { errorTitle: 'Could not follow' },
    onSuccess: (s) => {
      apply(s);
      toast.success(`You follow ${station.name}`, {
        description: 'We will tell you when it goes live.',
      });
    },
  });
  const unfollow = useMutation({
    mutationFn: () => followApi.unfollow(station.id),
    meta: { errorTitle: 'Could not unfollow' },
    onSuccess: () => {
      apply(undefined);
      toast.success(`You no longer follow ${station.name}`);
    },
  });
  const change = useMutation({
    mutationFn: (changes: Partial<FollowSettings>) =>
      followApi.settings({ stationId: station.id, ...changes }),
    meta: { errorTitle: 'Could not save' },
    onSuccess: apply,
    // The switch moved at once (below); the server's answer settles it either way.
    onSettled: () => setShown({}),
  });
  const [shown, setShown] = useState<Partial<FollowSettings>>({});
  const id = useId();
  if (!state.data) return null;
  const { following, settings } = state.data;
  return (
    <div className="follow" data-testid="follow">
      {following ? (
        <button
          type="button"
          className="btn btn-sm following"
          aria-pressed="true"
          disabled={unfollow.isPending}
          onClick={() => unfollow.mutate()}
          data-testid="follow-button"
        >
          ✓ Following
        </button>
      ) : (
        <button
          type="button"
          className="btn btn-primary btn-sm"
          aria-pressed="false"
          disabled={follow.isPending}
          onClick={() => follow.mutate()}
          data-testid="follow-button"
        >
          Follow
        </button>
      )}
      {following ? (
        <details className="follow-settings" data-testid="follow-settings">
          <summary>Notifications</summary>
          <fieldset>
            <legend id={`${id}-what`}>Tell me</legend>
            {SETTING_LABELS.map(([name, label]) => {
              const isPush = name === 'push';
              const pushBlocked = isPush && !pushSupported();
              const checked = isPush
                ? settings.push && push.subscribed
                : (shown[name] ?? settings[name]);
              return (
                <label key={name}>
                  <input
                    type="checkbox"
                    checked={checked}
                    disabled={(isPush && (change.isPending || push.busy)) || pushBlocked}
                    onChange={(e) => {
                      const on = e.target.checked;
                      if (!isPush) {
                        setShown((v) => ({ ...v, [name]: on }));
                        return change.mutate({ [name]: on });
                      }
                      void push
                        .setEnabled(on)
                        .then(() => change.mutate({ push: on }))
                        .catch((err: unknown) =>
                          toast.error('Browser notifications are off', {
                            description: errorMessage(err),
                          }),
                        );
                    }}
                    data-testid={`follow-setting-${name}`}
                  />{' '}
                  {label}
                  {pushBlocked ? ' (not available in this browser)' : ''}
                </label>
              );
            })}
          </fieldset>
        </details>
      ) : null}
    </div>
  );
}

function GuestFollow({ station, compact = false }: { station: Station; compact?: boolean }) {
  const [open, setOpen] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const id = useId();
  const send = useMutation({
    mutationFn: (address: string) => followApi.guest(station.id, address),
    meta: { errorToast: false },
    onSuccess: (_r, address) => setSentTo(address),
  });
  if (sentTo)
    return (
      <div className="follow" data-testid="follow">
        <p className="follow-note" role="status" data-testid="follow-sent">
          Check your inbox: we sent a link to <strong>{sentTo}</strong>. Open it to confirm.
        </p>
      </div>
    );
  if (!open)
    return (
      <div className="follow" data-testid="follow">
        <button
          type="button"
          className={compact ? 'btn btn-sm' : 'btn btn-primary btn-sm'}
          onClick={() => setOpen(true)}
          data-testid="follow-button"
        >
          {compact ? 'Get an e-mail when live' : 'Follow'}
        </button>
        {compact ? null : (
          <span className="follow-note">
            by e-mail, or <Link to="/signin">sign in</Link> to follow with your account
          </span>
        )}
      </div>
    );
  return (
    <div className="follow" data-testid="follow">
      <form
        className="follow-guest"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate(email.trim());
        }}
        data-testid="follow-guest-form"
      >
        <div className="field">
          <label htmlFor={`${id}-email`}>Your e-mail, to hear when {station.name} goes live</label>
          <input
            id={`${id}-email`}
            className="input"
            type="email"
            required
            autoComplete="email"
            maxLength={320}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="follow-email"
          />
        </div>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={send.isPending}
          data-testid="follow-email-submit"
        >
          {send.isPending ? 'Sending…' : 'Follow'}
        </button>
      </form>
      {send.error ? (
        <p className="field-error" role="alert" data-testid="follow-error">
          {errorMessage(send.error)}
        </p>
      ) : (
        <p className="follow-note">
          We send one confirmation link; nothing more until you open it.
        </p>
      )}
    </div>
  );
}

/** The embed's follow: by e-mail only (a foreign site cannot sign our users in). */
export function EmbedFollow({ station }: { station: Station }) {
  return <GuestFollow station={station} compact />;
}

/**
 * Below the embedded player while the station is off air: the countdown to the next show and
 * following by e-mail. Re-reads the station every 10 s to step aside once it is on air (the
 * player itself shows the live state).
 */
export function EmbedExtras({ station: initial }: { station: Station }) {
  const { data: station } = useQuery({
    ...stationQueries.detail(initial.id),
    initialData: initial,
    refetchInterval: 10_000,
  });
  if (isOnAir(station)) return null;
  return (
    <div className="embed-extras" data-testid="embed-extras">
      <NextShow station={station} />
      <EmbedFollow station={station} />
    </div>
  );
}
