import type { Recording, RecordingTimelineEntry } from '@radiobroadcaster/contracts';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import './recordings.css';

/** 75 → "1:15", 3725 → "1:02:05". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function formatWhen(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatSize(bytes: number): string {
  return bytes >= 1_000_000
    ? `${(bytes / 1_000_000).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1000))} kB`;
}

function entryText(e: RecordingTimelineEntry): string {
  const rest = [e.artist, e.album].filter(Boolean).join(' · ');
  return `${e.track ?? 'Nothing announced'}${rest ? ` — ${rest}` : ''}`;
}

/**
 * The recording with the site's own controls over an `<audio>` (seeking asks the server for byte
 * ranges): play/pause, the time, a seek bar marked where each now-playing entry starts, and the
 * now-playing timeline below, where the entry being heard is marked and a click jumps there.
 */
export function ReplayPlayer({ recording, src }: { recording: Recording; src: string }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [time, setTime] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [duration, setDuration] = useState(recording.durationSeconds);
  useEffect(() => {
    const el = audio.current;
    if (!el) return;
    const update = () => setTime(el.currentTime);
    const play = () => setPlaying(!el.paused);
    const meta = () => {
      if (Number.isFinite(el.duration) && el.duration > 0) setDuration(el.duration);
    };
    el.addEventListener('timeupdate', update);
    el.addEventListener('seeked', update);
    el.addEventListener('play', play);
    el.addEventListener('pause', play);
    el.addEventListener('ended', play);
    el.addEventListener('loadedmetadata', meta);
    el.addEventListener('durationchange', meta);
    return () => {
      el.removeEventListener('timeupdate', update);
      el.removeEventListener('seeked', update);
      el.removeEventListener('play', play);
      el.removeEventListener('pause', play);
      el.removeEventListener('ended', play);
      el.removeEventListener('loadedmetadata', meta);
      el.removeEventListener('durationchange', meta);
    };
  }, []);
  const timeline = recording.timeline;
  let current = -1;
  for (let i = 0; i < timeline.length; i++) if (timeline[i]!.offsetSeconds <= time) current = i;
  const seek = (seconds: number, andPlay = true) => {
    const el = audio.current;
    if (!el) return;
    el.currentTime = seconds;
    setTime(seconds);
    if (andPlay) void el.play().catch(() => undefined);
  };
  const toggle = () => {
    const el = audio.current;
    if (!el) return;
    if (el.paused) void el.play().catch(() => undefined);
    else el.pause();
  };
  const total = Math.max(duration, 0.1);
  const nowEntry = current >= 0 ? timeline[current] : undefined;
  return (
    <div className="replay-player">
      <audio
        ref={audio}
        preload="metadata"
        src={src}
        className="replay-audio"
        data-testid="replay-audio"
        aria-label={`Replay of ${recording.title}`}
      />
      <div className="rp" data-testid="replay-controls">
        <button
          type="button"
          className={`play-btn rp-play${playing ? ' is-playing' : ''}`}
          onClick={toggle}
          aria-label={playing ? 'Pause' : 'Play'}
          data-testid="replay-play"
        >
          <svg viewBox="0 0 24 24" aria-hidden="true" width="24" height="24">
            <path d={playing ? 'M6 5h4v14H6zm8 0h4v14h-4z' : 'M8 5v14l11-7z'} fill="currentColor" />
          </svg>
        </button>
        <div className="rp-main">
          <p className="rp-now" data-testid="replay-now">
            {nowEntry ? entryText(nowEntry) : '\u00a0'}
          </p>
          <div className="rp-seek">
            <input
              type="range"
              min={0}
              max={total}
              step={0.1}
              value={Math.min(time, total)}
              onChange={(e) => seek(Number(e.target.value), false)}
              aria-label="Seek"
              aria-valuetext={`${formatDuration(time)} of ${formatDuration(total)}`}
              style={{ '--rp-done': `${(Math.min(time, total) / total) * 100}%` } as CSSProperties}
              data-testid="replay-seek"
            />
            <div className="rp-marks" aria-hidden="true">
              {timeline.map((e, i) => (
                <span
                  key={`${e.offsetSeconds}-${i}`}
                  className="rp-mark"
                  title={entryText(e)}
                  style={{ left: `${(e.offsetSeconds / total) * 100}%` }}
                  data-testid="replay-mark"
                />
              ))}
            </div>
          </div>
          <p className="rp-time">
            <time data-testid="replay-elapsed">{formatDuration(time)}</time>
            <time>{formatDuration(total)}</time>
          </p>
        </div>
      </div>
      <section aria-labelledby="timeline-title" className="replay-timeline">
        <h2 id="timeline-title">Now playing timeline</h2>
        {timeline.length === 0 ? (
          <p className="muted small" data-testid="timeline-empty">
            Nothing was announced during this broadcast.
          </p>
        ) : (
          <ol className="timeline" data-testid="timeline">
            {timeline.map((e, i) => (
              <li key={`${e.offsetSeconds}-${i}`}>
                <button
                  type="button"
                  className="timeline-entry"
                  onClick={() => seek(e.offsetSeconds)}
                  aria-current={i === current ? 'true' : undefined}
                  data-testid="timeline-entry"
                  data-offset={e.offsetSeconds}
                >
                  <time className="timeline-at">{formatDuration(e.offsetSeconds)}</time>
                  <span className="timeline-text">{entryText(e)}</span>
                </button>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}

/** Published replays on the station page, newest first. */
export function ReplayList({
  recordings,
  username,
  slug,
}: {
  recordings: Recording[];
  username: string;
  slug: string;
}) {
  if (recordings.length === 0) return null;
  return (
    <section className="card" aria-labelledby="replays-title" data-testid="station-replays">
      <h2 id="replays-title">Replays</h2>
      <ul className="replay-list">
        {recordings.map((r) => (
          <li key={r.id} data-testid="station-replay">
            <Link
              to="/$username/$stationSlug/replays/$recordingId"
              params={{ username, stationSlug: slug, recordingId: r.id }}
            >
              {r.title}
            </Link>
            <span className="muted small">
              {formatWhen(r.startedAt)} · {formatDuration(r.durationSeconds)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
