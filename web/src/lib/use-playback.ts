import { ErrorTag, type Station } from '@radiobroadcaster/contracts';
import {
  ApiError as PlayerApiError,
  PRIVATE_TAGS,
  ListeningClient,
  connectWhep,
  type ListeningTransport,
  type PlayerState,
} from '@radiobroadcaster/player';

type JoinAccess = { invite?: string; password?: string; grant?: string };
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { stationKeys, stationQueries } from '../queries/station.queries';
import { api } from './api';
import { ApiError, NetworkError } from './api-error';
import { isDemoStationId } from './demo';
import { DemoTone } from './demo-audio';
import { clearMediaSession, setMediaSessionPlaying, setStationMediaSession } from './media-session';
import { showErrorToast, toastContentFor } from './toasts';
import { privateMessage } from '../components/access/PrivateUnlock';
import { rememberGrantAt } from './listen-grant';

export type PlaybackState = PlayerState;

const VOLUME_KEY = 'rb:volume';

function storedVolume(): number {
  try {
    const raw = localStorage.getItem(VOLUME_KEY);
    const v = raw === null ? NaN : Number(raw);
    return Number.isFinite(v) && v >= 0 && v <= 1 ? v : 0.8;
  } catch {
    return 0.8;
  }
}

/** The player library acts on its own error type (tag, status, Retry-After). */
function toPlayerError(err: unknown): unknown {
  if (err instanceof ApiError) return new PlayerApiError(err.message, err.status, err.tag);
  if (err instanceof NetworkError) return PlayerApiError.network(err.cause ?? err);
  return err;
}

/**
 * Listening to one station with the player library's `ListeningClient` (reconnects, stall
 * detection, waits while offline). Its network goes through this app: the station detail comes from
 * the query cache (polled every 2 s by the page) and joining is the `joinAsReceiver` mutation, so
 * its toasts by error tag and the detail refresh on success.
 */
export function usePlayback(station: Station) {
  const queryClient = useQueryClient();
  const audioRef = useRef<HTMLAudioElement>(null);
  const clientRef = useRef<ListeningClient | null>(null);
  const demoRef = useRef<DemoTone | null>(null);
  /** Whether the server has the demo station on air (asked once, at the first Play). */
  const demoLive = useRef<boolean | null>(null);
  const [state, setState] = useState<PlaybackState>('idle');
  /** Between a press on Play and Stop (also while waiting for an offline station). */
  const [wanted, setWanted] = useState(false);
  const [errorText, setErrorText] = useState<string | null>(null);
  /** WebRTC could not connect: the station plays from its HTTP stream. */
  const [viaHttp, setViaHttp] = useState(false);
  const [volume, setVolumeState] = useState(storedVolume);
  const [muted, setMuted] = useState(false);
  const isDemo = isDemoStationId(station.id);
  const stationId = station.id;

  const join = useMutation({
    mutationFn: ({ id, access }: { id: string; access?: JoinAccess }) =>
      api.stations.joinAsReceiver(id, access),
    // a private station's refusal is shown by the player itself (its password form)
    meta: { errorTitle: 'Failed to join station', quietTags: PRIVATE_TAGS },
    onSuccess: (data, { id }) => {
      // a private station's grant: its replay pages ask for it by address
      if (data.grant) rememberGrantAt(station.broadcaster.username, station.slug, data.grant.token);
      return queryClient.invalidateQueries({ queryKey: stationKeys.detail(id) });
    },
  });
  const joinRef = useRef(join.mutateAsync);
  joinRef.current = join.mutateAsync;

  const createClient = useCallback((): ListeningClient | null => {
    const audio = audioRef.current;
    if (!audio) return null;
    const transport: ListeningTransport = {
      getStation: async (locator) => {
        const id = 'id' in locator ? locator.id : stationId;
        return (
          queryClient.getQueryData<Station>(stationKeys.detail(id)) ??
          queryClient.fetchQuery(stationQueries.detail(id))
        );
      },
      join: async (id, _signal, access) => {
        try {
          return await joinRef.current({ id, access });
        } catch (err) {
          throw toPlayerError(err);
        }
      },
      connect: (joined, signal) => connectWhep(joined, { signal }),
    };
    const client = new ListeningClient({ station: { id: stationId }, audio, transport });
    // an invite link opens the station page with `?invite=`: it admits this listener
    const invite = new URLSearchParams(window.location.search).get('invite');
    if (invite) client.setAccess({ invite });
    client.on('transport', (t) => setViaHttp(t === 'http'));
    client.on('state', ({ state: next, previous, error }) => {
      setState(next);
      setWanted(client.playing);
      setErrorText(
        next === 'private'
          ? privateMessage(error)
          : next === 'error' || next === 'not-allowed'
            ? toastContentFor(error).description
            : null,
      );
      // A station that is not broadcasting gets the 'Station offline' toast, whether the
      // join was refused or the client already knew (same toast id, so never twice).
      if (next === 'offline' && previous !== 'offline' && client.playing) {
        showErrorToast({ tag: ErrorTag.StationNotActive }, 'Failed to join station');
      }
    });
    return client;
  }, [queryClient, stationId]);

  const stop = useCallback(() => {
    setWanted(false);
    clientRef.current?.pause();
    if (demoRef.current) {
      demoRef.current.stop();
      if (audioRef.current) audioRef.current.srcObject = null;
      setState('idle');
    }
    setMediaSessionPlaying(false);
  }, []);

  const play = useCallback(() => {
    const audio = audioRef.current;
    if (!audio) return;
    if (isDemo && demoLive.current !== true) {
      // The server publishes the demo itself (DEMO_STATION); where it does not, a generated chord.
      setWanted(true);
      setState('connecting');
      void api.stations
        .get(stationId)
        .then(
          (s) => s.status === 'live',
          () => false,
        )
        .then((live) => {
          demoLive.current = live;
          if (live) {
            play();
            return;
          }
          demoRef.current ??= new DemoTone();
          demoRef.current.start(audio);
          setState('live');
        });
      return;
    }
    let client = clientRef.current;
    // A client that gave up (not found, unsupported) stays quiet: a new press starts afresh.
    if (client && (client.state === 'error' || client.state === 'not-allowed')) {
      client.destroy();
      client = null;
    }
    client ??= createClient();
    clientRef.current = client;
    if (!client) return;
    setWanted(true);
    client.play();
  }, [createClient, isDemo]);

  // Media keys and the lock screen follow the station and its now playing.
  const active = wanted && (state === 'live' || state === 'connecting' || state === 'offline');
  useEffect(() => {
    if (!active) return;
    setStationMediaSession(station, { play, pause: stop, stop });
    setMediaSessionPlaying(state === 'live');
  }, [station, state, active, play, stop]);

  useEffect(() => {
    const audio = audioRef.current;
    if (audio) {
      audio.volume = volume;
      audio.muted = muted;
    }
  }, [volume, muted]);

  useEffect(() => {
    const leave = () => clientRef.current?.leaveOnUnload();
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      clientRef.current?.destroy();
      clientRef.current = null;
      demoRef.current?.stop();
      clearMediaSession();
    };
  }, []);

  const setVolume = useCallback((v: number) => {
    setVolumeState(v);
    setMuted(false);
    try {
      localStorage.setItem(VOLUME_KEY, String(v));
    } catch {
      // Private mode: keep it for this page only.
    }
  }, []);

  /** A private station's password, from the player's form: listening starts when it admits. */
  const unlock = useCallback(
    (password: string) => {
      const client = clientRef.current ?? createClient();
      clientRef.current = client;
      if (!client) return;
      setWanted(true);
      client.setAccess({ password });
      if (client.state !== 'private') client.play();
    },
    [createClient],
  );

  return {
    audioRef,
    state,
    unlock,
    viaHttp,
    wanted: active,
    errorText,
    play,
    stop,
    volume,
    setVolume,
    muted,
    setMuted,
  };
}
