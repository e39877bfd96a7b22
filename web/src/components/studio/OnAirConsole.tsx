import type { Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { MESSAGES, type BroadcastState } from '../../lib/broadcast';
import { lastNowPlaying, rememberNowPlaying } from '../../lib/last-now-playing';
import {
  canCaptureDisplay,
  listInputs,
  rememberDevice,
  rememberSource,
  rememberedDevice,
  rememberedSource,
  type AudioSource,
  type InputDevice,
} from '../../lib/input-devices';
import { stationKeys } from '../../queries/station.queries';
import { useBroadcast } from '../broadcast/BroadcastProvider';
import { formatElapsed } from '../broadcast/OnAirBar';
import { ConfirmDialog } from '../ConfirmDialog';
import { isOnAir, listenerLabel } from '../StationView';
import { LevelMeterView } from './LevelMeter';
import { SystemAudioNote } from './SystemAudioNote';
import './console.css';

const STATE_TEXT: Record<BroadcastState, string> = {
  idle: 'Not broadcasting from this browser.',
  capturing: 'Choose what to share…',
  connecting: 'Connecting…',
  live: 'On air from this browser.',
  reconnecting: 'Connection unstable, reconnecting…',
};

/** The audio inputs, named once the browser allows it, kept current when devices come and go. */
function useInputDevices(enabled: boolean) {
  const [inputs, setInputs] = useState<{ devices: InputDevice[]; labelled: boolean }>({
    devices: [],
    labelled: false,
  });
  const refresh = useCallback(() => {
    void listInputs().then(setInputs, () => undefined);
  }, []);
  useEffect(() => {
    if (!enabled || !navigator.mediaDevices) return;
    refresh();
    navigator.mediaDevices.addEventListener('devicechange', refresh);
    return () => navigator.mediaDevices.removeEventListener('devicechange', refresh);
  }, [enabled, refresh]);
  /** Asks for the microphone once so the browser tells the inputs' names. */
  const reveal = useCallback(async () => {
    try {
      const s = await navigator.mediaDevices.getUserMedia({ audio: true });
      s.getTracks().forEach((t) => t.stop());
    } catch {
      // Refused: the list stays generic.
    }
    refresh();
  }, [refresh]);
  return { ...inputs, reveal };
}

/** The audio sources a broadcaster picks from, in the order shown. */
const SOURCE_OPTIONS: { value: AudioSource; title: string; hint: string }[] = [
  {
    value: 'display',
    title: 'Tab, window or screen',
    hint: 'Shares what your computer plays. Tick “Share audio”.',
  },
  {
    value: 'microphone',
    title: 'Microphone or audio interface',
    hint: 'A mic, a mixer, a USB interface.',
  },
];

const HEADING: Record<BroadcastState, string> = {
  idle: 'Broadcast',
  capturing: 'Choosing a source',
  connecting: 'Connecting',
  live: 'On air',
  reconnecting: 'Reconnecting',
};

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * The on-air console: source, level, Go live / End, time on air, listeners and now playing in one
 * panel that stays in view while this browser broadcasts (sticky at the top of the studio on a
 * computer, a bottom sheet on a phone), reconnecting included.
 */
export function OnAirConsole({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const { state, station: target, message, sourceLabel, liveSince, controller } = useBroadcast();
  const mine = target?.id === station.id;
  const busy = mine && state !== 'idle';
  const elsewhere = state !== 'idle' && !mine ? target : null;
  const [source, setSource] = useState<AudioSource>(rememberedSource);
  const [deviceId, setDeviceId] = useState(rememberedDevice);
  const inputs = useInputDevices(source === 'microphone');
  const [confirmEnd, setConfirmEnd] = useState(false);
  const sourceId = useId();
  const onAir = isOnAir(station);
  const shownState: BroadcastState = mine ? state : 'idle';
  const now = useNow(mine && state === 'live');
  const heading = useRef<HTMLHeadingElement>(null);
  // Going live swaps Go live for End: focus stays in the console (on its heading, which now says
  // "On air") instead of falling back to the page.
  const focusAfterStart = useRef(false);
  const root = useRef<HTMLElement>(null);
  // Sticky just below the site's own sticky header (whose height grows with the on-air bar).
  useEffect(() => {
    const header = document.querySelector<HTMLElement>('.site-header');
    const el = root.current;
    if (!busy || !header || !el) return;
    const place = () => el.style.setProperty('--console-top', `${header.offsetHeight + 8}px`);
    place();
    const observer = new ResizeObserver(place);
    observer.observe(header);
    return () => observer.disconnect();
  }, [busy]);
  useEffect(() => {
    if (busy && focusAfterStart.current) {
      focusAfterStart.current = false;
      heading.current?.focus();
    }
  }, [busy]);

  // A remembered input that is gone falls back to the default.
  useEffect(() => {
    if (deviceId && inputs.labelled && !inputs.devices.some((d) => d.deviceId === deviceId)) {
      setDeviceId('');
    }
  }, [deviceId, inputs]);

  const end = useMutation({
    mutationFn: () => api.stations.end(station.id),
    meta: { errorTitle: 'Could not end the broadcast' },
    onSuccess: async (ended) => {
      if (mine) await controller.stop();
      queryClient.setQueryData(stationKeys.detail(station.id), ended);
      setConfirmEnd(false);
      toast.success('Broadcast ended', { description: 'You can go live again at any time.' });
      await queryClient.invalidateQueries({ queryKey: stationKeys.all });
    },
  });

  const goLive = () => {
    focusAfterStart.current = true;
    rememberSource(source);
    if (source === 'microphone') rememberDevice(deviceId);
    void controller.start(
      {
        id: station.id,
        name: station.name,
        slug: station.slug,
        username: station.broadcaster.username,
      },
      source,
      source === 'microphone' ? deviceId : '',
    );
  };

  return (
    <section
      ref={root}
      className={`card console console-${shownState}`}
      aria-labelledby="broadcast-title"
      data-testid="broadcast"
      data-live={busy || undefined}
    >
      <div className="console-head">
        <h2 id="broadcast-title" ref={heading} tabIndex={-1} className="console-title">
          {busy ? <span className="onair-dot" aria-hidden="true" /> : null}
          {HEADING[shownState]}
        </h2>
        <p className="console-figures">
          {mine && state === 'live' && liveSince ? (
            <time
              className="console-elapsed"
              dateTime={`PT${Math.floor((now - liveSince) / 1000)}S`}
              data-testid="console-elapsed"
            >
              {formatElapsed(now - liveSince)}
            </time>
          ) : null}
          {busy || onAir ? (
            <span data-testid="console-listeners" data-count={station.viewerCount}>
              {listenerLabel(station.viewerCount)}
            </span>
          ) : null}
        </p>
      </div>
      {elsewhere ? (
        <p className="notice" role="note">
          You are on air with <strong>{elsewhere.name}</strong>.{' '}
          <Link to="/studio" search={{ station: elsewhere.id }}>
            Open it
          </Link>{' '}
          to end that broadcast before starting another.
        </p>
      ) : null}
      <fieldset className="source-options" disabled={busy} hidden={busy}>
        <legend>Audio source</legend>
        {SOURCE_OPTIONS.map((o) => (
          <label key={o.value} className="radio-card">
            <input
              type="radio"
              name="source"
              value={o.value}
              checked={source === o.value}
              onChange={() => setSource(o.value)}
              data-testid={`source-${o.value}`}
            />
            <span>
              <strong>{o.title}</strong>
              <br />
              <span className="muted small">{o.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {source === 'microphone' && !busy ? (
        <div className="field device-field">
          <label htmlFor={sourceId}>Input</label>
          <div className="device-row">
            <select
              id={sourceId}
              className="select"
              value={deviceId}
              disabled={busy}
              onChange={(e) => setDeviceId(e.target.value)}
              data-testid="input-device"
            >
              <option value="">System default</option>
              {inputs.devices.map((d) => (
                <option key={d.deviceId} value={d.deviceId}>
                  {d.label}
                </option>
              ))}
            </select>
            {!inputs.labelled ? (
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => void inputs.reveal()}
                disabled={busy}
                data-testid="reveal-inputs"
              >
                Show input names
              </button>
            ) : null}
          </div>
        </div>
      ) : busy ? null : !canCaptureDisplay() ? (
        <p className="notice notice-warn" role="note">
          {MESSAGES.noSystemAudio}
        </p>
      ) : (
        <SystemAudioNote />
      )}
      {mine && message ? (
        <p className="notice notice-warn" role="alert" data-testid="broadcast-message">
          {message}
        </p>
      ) : null}
      <p
        role="status"
        className="console-state"
        data-testid="broadcast-state"
        data-state={shownState}
      >
        {STATE_TEXT[shownState]}
        {sourceLabel && busy ? <span className="muted small"> Source: {sourceLabel}</span> : null}
      </p>
      {busy ? <LevelMeterView meter={controller.meter} /> : null}
      <ConsoleNowPlaying station={station} offerLast={busy} />
      <div className="actions console-actions">
        {busy && (state === 'capturing' || state === 'connecting') ? (
          <button
            type="button"
            className="btn"
            onClick={() => void controller.stop()}
            data-testid="cancel-broadcast"
          >
            Cancel
          </button>
        ) : null}
        {busy || onAir ? (
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => setConfirmEnd(true)}
            data-testid="end-broadcast"
          >
            End broadcast
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-primary btn-lg"
            onClick={goLive}
            disabled={!!elsewhere}
            data-testid="go-live"
          >
            Go live
          </button>
        )}
      </div>
      <ConfirmDialog
        open={confirmEnd}
        title="End the broadcast?"
        confirmLabel="End broadcast"
        pendingLabel="Ending…"
        pending={end.isPending}
        onConfirm={() => end.mutate()}
        onCancel={() => setConfirmEnd(false)}
        data-testid="end-dialog"
      >
        <p>
          {station.viewerCount > 0
            ? `${listenerLabel(station.viewerCount)} will be disconnected. `
            : 'Everyone listening will be disconnected. '}
          Now playing is cleared. The station stays, and you can go live again at any time.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/**
 * Now playing, one line in the console: what listeners see, a way to change it, and after an End
 * (which clears it on the server) the last title offered again once back on air.
 */
function ConsoleNowPlaying({ station, offerLast }: { station: Station; offerLast: boolean }) {
  const queryClient = useQueryClient();
  const np = station.nowPlaying;
  const [last, setLast] = useState(() => lastNowPlaying(station.id));
  useEffect(() => {
    if (!np) return;
    rememberNowPlaying(station.id, np);
    setLast(lastNowPlaying(station.id));
  }, [station.id, np]);
  const announce = useMutation({
    mutationFn: () =>
      api.stations.setNowPlaying({
        stationId: station.id,
        track: last?.track ?? '',
        artist: last?.artist || undefined,
        album: last?.album || undefined,
      }),
    meta: { errorTitle: 'Could not update now playing' },
    onSuccess: (s) => {
      queryClient.setQueryData(stationKeys.detail(station.id), s);
      toast.success('Now playing updated');
    },
  });
  const change = () => {
    const field = document.querySelector<HTMLInputElement>(
      '[data-testid=studio-now-playing] input[name=track]',
    );
    field?.scrollIntoView({ block: 'center' });
    field?.focus({ preventScroll: true });
  };
  const title = (t: { track: string; artist?: string | null }) =>
    `${t.track}${t.artist ? ` — ${t.artist}` : ''}`;
  return (
    <div className="console-np" data-testid="console-now-playing">
      <span className="console-np-label">Now playing</span>
      {np ? (
        <span className="console-np-title" data-testid="console-now-playing-title">
          {title(np)}
        </span>
      ) : offerLast && last ? (
        <span className="console-np-title muted" data-testid="console-last-title">
          Last time: {title(last)}
        </span>
      ) : (
        <span className="console-np-title muted">Nothing announced</span>
      )}
      <span className="console-np-actions">
        {!np && offerLast && last ? (
          <button
            type="button"
            className="btn btn-sm btn-primary"
            onClick={() => announce.mutate()}
            disabled={announce.isPending}
            data-testid="console-announce-last"
          >
            Announce again
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-sm"
          onClick={change}
          data-testid="console-np-change"
        >
          {np ? 'Change' : 'Announce'}
        </button>
      </span>
    </div>
  );
}
