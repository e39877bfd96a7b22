import type { Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useCallback, useEffect, useId, useState } from 'react';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { MESSAGES, type BroadcastState } from '../../lib/broadcast';
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
import { ConfirmDialog } from '../ConfirmDialog';
import { isOnAir, listenerLabel } from '../StationView';
import { LevelMeterView } from './LevelMeter';

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

/** Source, input, level and the Go live / End broadcast actions for one station. */
export function BroadcastCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const { state, station: target, message, sourceLabel, controller } = useBroadcast();
  const mine = target?.id === station.id;
  const busy = mine && state !== 'idle';
  const elsewhere = state !== 'idle' && !mine ? target : null;
  const [source, setSource] = useState<AudioSource>(rememberedSource);
  const [deviceId, setDeviceId] = useState(rememberedDevice);
  const inputs = useInputDevices(source === 'microphone');
  const [confirmEnd, setConfirmEnd] = useState(false);
  const sourceId = useId();
  const onAir = isOnAir(station);

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
    <section className="card" aria-labelledby="broadcast-title" data-testid="broadcast">
      <h2 id="broadcast-title">Broadcast</h2>
      {elsewhere ? (
        <p className="notice" role="note">
          You are on air with <strong>{elsewhere.name}</strong>.{' '}
          <Link to="/studio" search={{ station: elsewhere.id }}>
            Open it
          </Link>{' '}
          to end that broadcast before starting another.
        </p>
      ) : null}
      <fieldset className="source-options" disabled={busy}>
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
      {source === 'microphone' ? (
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
      ) : !canCaptureDisplay() ? (
        <p className="notice notice-warn" role="note">
          {MESSAGES.noSystemAudio}
        </p>
      ) : null}
      {mine && message ? (
        <p className="notice notice-warn" role="alert" data-testid="broadcast-message">
          {message}
        </p>
      ) : null}
      <p role="status" data-testid="broadcast-state" data-state={mine ? state : 'idle'}>
        {STATE_TEXT[mine ? state : 'idle']}
        {sourceLabel && busy ? <span className="muted small"> Source: {sourceLabel}</span> : null}
      </p>
      {busy ? <LevelMeterView meter={controller.meter} /> : null}
      <div className="actions">
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
      {station.status === 'ended' && !busy ? (
        <p className="muted small" data-testid="ended-note">
          The last broadcast has ended. Go live to start a new one.
        </p>
      ) : null}
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
