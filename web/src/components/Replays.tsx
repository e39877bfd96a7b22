import type { Recording, RecordingTimelineEntry } from '@radiobroadcaster/contracts';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
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
 * The recording in a native `<audio>` (seeking asks the server for byte ranges) and its now-playing
 * timeline: the entry being heard is marked, and a click on one jumps there.
 */
export function ReplayPlayer({ recording, src }: { recording: Recording; src: string }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [time, setTime] = useState(0);
  useEffect(() => {
    const el = audio.current;
    if (!el) return;
    const update = () => setTime(el.currentTime);
    el.addEventListener('timeupdate', update);
    el.addEventListener('seeked', update);
    return () => {
      el.removeEventListener('timeupdate', update);
      el.removeEventListener('seeked', update);
    };
  }, []);
  const timeline = recording.timeline;
  let current = -1;
  for (let i = 0; i < timeline.length; i++) if (timeline[i]!.offsetSeconds <= time) current = i;
  const seek = (seconds: number) => {
    const el = audio.current;
    if (!el) return;
    el.currentTime = seconds;
    void el.play().catch(() => undefined);
  };
  return (
    <div className="replay-player">
      <audio
        ref={audio}
        controls
        preload="metadata"
        src={src}
        className="replay-audio"
        data-testid="replay-audio"
        aria-label={`Replay of ${recording.title}`}
      />
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
