import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { stationKeys } from '../queries/station.queries';
import { api } from './api';
import { freshStationToken, msUntilRefresh, rememberStationToken } from './station-tokens';
import { showErrorToast } from './toasts';
import { WhipPublisher, type PublisherState } from './whip-publisher';

export type AudioSource = 'display' | 'microphone';
export type BroadcastState = 'idle' | 'capturing' | 'connecting' | 'live' | 'reconnecting';

export const MESSAGES = {
  noAudioTrack:
    'The source you chose has no audio. Share again and pick a browser tab or your entire screen with “Share audio” switched on — windows usually have no audio.',
  noSystemAudio:
    "This browser can't capture the audio of a tab, window or screen. Use Chrome or Edge on a computer, or choose Microphone.",
  displayCancelled: 'Sharing was cancelled. Nothing is on air.',
  micBlocked:
    'Microphone access was blocked. Allow it in the browser’s site settings and try again.',
  micMissing: 'No microphone was found.',
  sourceEnded: 'The shared source stopped, so the broadcast ended.',
  connectionLost: 'The connection to the server was lost. Press Go live to try again.',
} as const;

/** Whether this browser can be asked for tab/screen audio at all. */
export function canCaptureDisplay(): boolean {
  return typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getDisplayMedia;
}

async function capture(source: AudioSource): Promise<MediaStream> {
  if (source === 'microphone') {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error(MESSAGES.micMissing);
    try {
      return await navigator.mediaDevices.getUserMedia({
        audio: {
          echoCancellation: false,
          noiseSuppression: false,
          autoGainControl: false,
          channelCount: { ideal: 2 },
        },
        video: false,
      });
    } catch (err) {
      const name = err instanceof DOMException ? err.name : '';
      if (name === 'NotAllowedError' || name === 'SecurityError')
        throw new Error(MESSAGES.micBlocked);
      if (name === 'NotFoundError' || name === 'OverconstrainedError')
        throw new Error(MESSAGES.micMissing);
      throw err;
    }
  }
  if (!canCaptureDisplay()) throw new Error(MESSAGES.noSystemAudio);
  let stream: MediaStream;
  try {
    // Chrome only offers audio alongside video; the video track is never sent.
    stream = await navigator.mediaDevices.getDisplayMedia({
      video: true,
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      systemAudio: 'include',
      windowAudio: 'system',
    } as DisplayMediaStreamOptions);
  } catch (err) {
    const name = err instanceof DOMException ? err.name : '';
    if (name === 'NotAllowedError' || name === 'AbortError')
      throw new Error(MESSAGES.displayCancelled);
    if (name === 'NotSupportedError' || name === 'TypeError')
      throw new Error(MESSAGES.noSystemAudio);
    throw err;
  }
  if (stream.getAudioTracks().length === 0) {
    stream.getTracks().forEach((t) => t.stop());
    throw new Error(MESSAGES.noAudioTrack);
  }
  return stream;
}

/** The broadcaster side of the studio: capture, publish over WHIP, keep the token fresh. */
export function useBroadcast(stationId: string) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<BroadcastState>('idle');
  const [message, setMessage] = useState<string | null>(null);
  const [level, setLevel] = useState(0);
  const [sourceLabel, setSourceLabel] = useState<string | null>(null);
  const streamRef = useRef<MediaStream | null>(null);
  const publisherRef = useRef<WhipPublisher | null>(null);
  const tokenRef = useRef('');
  const timerRef = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const meterRef = useRef<{ ctx: AudioContext; raf: number } | null>(null);

  const teardown = useCallback(async () => {
    clearTimeout(timerRef.current);
    if (meterRef.current) {
      cancelAnimationFrame(meterRef.current.raf);
      void meterRef.current.ctx.close();
      meterRef.current = null;
    }
    setLevel(0);
    const publisher = publisherRef.current;
    publisherRef.current = null;
    streamRef.current?.getTracks().forEach((t) => t.stop());
    streamRef.current = null;
    setSourceLabel(null);
    await publisher?.stop();
  }, []);

  const stop = useCallback(
    async (why?: string) => {
      await teardown();
      setState('idle');
      setMessage(why ?? null);
      void queryClient.invalidateQueries({ queryKey: stationKeys.detail(stationId) });
    },
    [queryClient, stationId, teardown],
  );

  const scheduleRefresh = useCallback(
    (expiresAt: string) => {
      clearTimeout(timerRef.current);
      timerRef.current = setTimeout(
        async () => {
          try {
            const next = await api.stations.refreshToken(stationId);
            rememberStationToken(stationId, next);
            tokenRef.current = next.token;
            scheduleRefresh(next.expiresAt);
          } catch (err) {
            showErrorToast(err, 'Could not refresh the station token');
            scheduleRefresh(new Date(Date.now() + 70_000).toISOString());
          }
        },
        msUntilRefresh({ token: tokenRef.current, expiresAt }),
      );
    },
    [stationId],
  );

  const startMeter = useCallback((stream: MediaStream) => {
    try {
      const ctx = new AudioContext();
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 512;
      ctx.createMediaStreamSource(stream).connect(analyser);
      const buf = new Float32Array(analyser.fftSize);
      let last = 0;
      const tick = (t: number) => {
        if (t - last > 100) {
          last = t;
          analyser.getFloatTimeDomainData(buf);
          let sum = 0;
          for (const v of buf) sum += v * v;
          setLevel(Math.min(1, Math.sqrt(sum / buf.length) * 4));
        }
        meter.raf = requestAnimationFrame(tick);
      };
      const meter = { ctx, raf: requestAnimationFrame(tick) };
      meterRef.current = meter;
    } catch {
      // The meter is a nicety; broadcasting works without it.
    }
  }, []);

  const start = useCallback(
    async (source: AudioSource) => {
      await teardown();
      setMessage(null);
      setState('capturing');
      let stream: MediaStream;
      try {
        stream = await capture(source);
      } catch (err) {
        setState('idle');
        setMessage(err instanceof Error ? err.message : String(err));
        return;
      }
      streamRef.current = stream;
      const track = stream.getAudioTracks()[0];
      setSourceLabel(track.label || (source === 'microphone' ? 'Microphone' : 'Shared audio'));
      track.addEventListener('ended', () => void stop(MESSAGES.sourceEnded));
      startMeter(stream);
      setState('connecting');
      try {
        const token = await freshStationToken(stationId);
        tokenRef.current = token.token;
        const onState = (s: PublisherState) => {
          if (s === 'connected') setState('live');
          else if (s === 'disconnected') setState('reconnecting');
          else if (s === 'failed') void stop(MESSAGES.connectionLost);
        };
        const publisher = new WhipPublisher(stationId, () => tokenRef.current, onState);
        publisherRef.current = publisher;
        await publisher.start(track, new MediaStream([track]));
        scheduleRefresh(token.expiresAt);
        void queryClient.invalidateQueries({ queryKey: stationKeys.detail(stationId) });
      } catch (err) {
        await teardown();
        setState('idle');
        showErrorToast(err, 'Could not go live');
      }
    },
    [queryClient, scheduleRefresh, startMeter, stationId, stop, teardown],
  );

  useEffect(() => () => void teardown(), [teardown]);

  return { state, message, level, sourceLabel, start, stop };
}
