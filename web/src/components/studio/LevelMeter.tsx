import { useEffect, useRef, useState } from 'react';
import type { Level, LevelMeter as Meter } from '../../lib/level-meter';

const FLOOR_DB = -60;

const toPercent = (db: number) =>
  Number.isFinite(db) ? Math.max(0, Math.min(100, ((db - FLOOR_DB) / -FLOOR_DB) * 100)) : 0;

/**
 * The input level in dBFS (-60 to 0), with the held peak and a clipping warning. Readings arrive 20
 * times a second and are drawn straight into the DOM; React only re-renders when clipping changes.
 */
export function LevelMeterView({ meter }: { meter: Meter }) {
  const fill = useRef<HTMLSpanElement>(null);
  const hold = useRef<HTMLSpanElement>(null);
  const bar = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLSpanElement>(null);
  const [clipping, setClipping] = useState(false);

  useEffect(() => {
    const draw = (level: Level) => {
      const db = Number.isFinite(level.rmsDb) ? Math.round(level.rmsDb) : FLOOR_DB;
      if (fill.current) fill.current.style.width = `${toPercent(level.rmsDb)}%`;
      if (hold.current) hold.current.style.left = `${toPercent(level.holdDb)}%`;
      if (bar.current) {
        bar.current.setAttribute('aria-valuenow', String(Math.max(FLOOR_DB, db)));
        bar.current.setAttribute(
          'aria-valuetext',
          db <= FLOOR_DB ? 'silence' : `${db} dB${level.clipping ? ', clipping' : ''}`,
        );
      }
      if (readout.current) {
        readout.current.textContent = db <= FLOOR_DB ? '−∞ dB' : `${db} dB`.replace('-', '−');
      }
      setClipping(level.clipping);
    };
    draw(meter.current());
    return meter.subscribe(draw);
  }, [meter]);

  return (
    <div className="level" data-clipping={clipping || undefined}>
      <div className="level-row">
        <div
          ref={bar}
          className="level-bar"
          role="meter"
          aria-label="Input level"
          aria-valuemin={FLOOR_DB}
          aria-valuemax={0}
          aria-valuenow={FLOOR_DB}
          data-testid="level-meter"
        >
          <span ref={fill} className="level-fill" />
          <span ref={hold} className="level-hold" aria-hidden="true" />
        </div>
        <span ref={readout} className="level-readout" aria-hidden="true" data-testid="level-db" />
      </div>
      <div className="level-scale" aria-hidden="true">
        {[-60, -40, -20, -6, 0].map((db) => (
          <span key={db} style={{ left: `${toPercent(db)}%` }}>
            {db === 0 ? '0' : `−${-db}`}
          </span>
        ))}
      </div>
      <p className="level-clip" role="status" data-testid="clipping-warning" data-active={clipping}>
        {clipping
          ? 'Clipping: the input is too loud and distorts. Turn it down at the source.'
          : ''}
      </p>
    </div>
  );
}
