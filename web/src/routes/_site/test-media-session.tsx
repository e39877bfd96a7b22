import { createFileRoute } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { NowPlayingView, PlayIcon, StopIcon } from '../../components/StationView';
import { DEMO_STATION } from '../../lib/demo';
import { DemoTone } from '../../lib/demo-audio';
import {
  clearMediaSession,
  setMediaSessionPlaying,
  setStationMediaSession,
} from '../../lib/media-session';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/test-media-session')({
  head: () => ({
    meta: [
      ...pageMeta({
        title: withSuffix('Media Session test'),
        description: 'Checks lock-screen metadata and media keys with the demo station.',
      }),
      { name: 'robots', content: 'noindex' },
    ],
  }),
  component: MediaSessionTestPage,
});

/** Exercises lock-screen / media-key metadata and actions with the demo station. */
function MediaSessionTestPage() {
  const audioRef = useRef<HTMLAudioElement>(null);
  const toneRef = useRef<DemoTone | null>(null);
  const [playing, setPlaying] = useState(false);
  const [log, setLog] = useState<string[]>([]);
  const supported = typeof navigator !== 'undefined' && 'mediaSession' in navigator;

  const note = (line: string) =>
    setLog((l) => [`${new Date().toLocaleTimeString()} ${line}`, ...l].slice(0, 50));

  const play = () => {
    if (!audioRef.current) return;
    toneRef.current ??= new DemoTone();
    toneRef.current.start(audioRef.current);
    setPlaying(true);
  };
  const stop = () => {
    toneRef.current?.stop();
    if (audioRef.current) audioRef.current.srcObject = null;
    setPlaying(false);
  };

  useEffect(() => {
    if (!playing) {
      setMediaSessionPlaying(false);
      return;
    }
    setStationMediaSession(DEMO_STATION, {
      play: () => {
        note('action: play');
        play();
      },
      pause: () => {
        note('action: pause');
        stop();
      },
      stop: () => {
        note('action: stop');
        stop();
      },
    });
    setMediaSessionPlaying(true);
    note('metadata set');
  }, [playing]);

  useEffect(
    () => () => {
      toneRef.current?.stop();
      clearMediaSession();
    },
    [],
  );

  const np = DEMO_STATION.nowPlaying!;
  return (
    <div className="container narrow page">
      <p className="eyebrow">Test page</p>
      <h1 data-testid="page-title">Media Session test</h1>
      <p className="muted">
        Play the demo station, then lock your phone or use the media keys: the lock screen should
        show the track below, and play, pause and stop should act on this page.
      </p>
      <div className="card">
        <NowPlayingView station={DEMO_STATION} />
        <div className="player">
          <button
            type="button"
            className={`play-btn ${playing ? 'is-playing' : ''}`}
            onClick={() => (playing ? stop() : play())}
            data-testid="play-button"
          >
            {playing ? <StopIcon /> : <PlayIcon />}
            <span>{playing ? 'Stop' : 'Play demo'}</span>
          </button>
        </div>
        <audio ref={audioRef} />
        <dl className="kv" style={{ marginTop: '1rem' }}>
          <dt>Media Session</dt>
          <dd data-testid="media-session-support">{supported ? 'Supported' : 'Not supported'}</dd>
          <dt>Title</dt>
          <dd>{np.track}</dd>
          <dt>Artist</dt>
          <dd>{np.artist}</dd>
          <dt>Album</dt>
          <dd>{np.album}</dd>
          <dt>State</dt>
          <dd data-testid="media-session-state">{playing ? 'playing' : 'paused'}</dd>
        </dl>
      </div>
      <h2 style={{ marginTop: '2rem' }}>Events</h2>
      <ol className="card test-log" aria-live="polite" data-testid="media-session-log">
        {log.length === 0 ? <li className="muted">No events yet.</li> : null}
        {log.map((l, i) => (
          <li key={`${i}-${l}`}>{l}</li>
        ))}
      </ol>
    </div>
  );
}
