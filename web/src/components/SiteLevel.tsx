import { LevelViz } from '@radiobroadcaster/player';
import { useEffect, useRef, type RefObject } from 'react';

/**
 * The station page's level animation: the same analyser and bars as `<radio-player>`, on the stream
 * this page plays (none over HTTP, none under prefers-reduced-motion). Its room is kept while
 * stopped, so starting playback moves nothing on the page.
 */
export function SiteLevel({
  audioRef,
  active,
}: {
  audioRef: RefObject<HTMLAudioElement | null>;
  active: boolean;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const viz = useRef<LevelViz | null>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const v = new LevelViz(canvas.current);
    viz.current = v;
    return () => v.stop();
  }, []);
  useEffect(() => {
    const stream = audioRef.current?.srcObject;
    viz.current?.sync(active && stream instanceof MediaStream ? stream : null);
  });
  return (
    <canvas
      ref={canvas}
      className="site-level"
      data-playing={active || undefined}
      aria-hidden="true"
      data-testid="station-level"
    />
  );
}
