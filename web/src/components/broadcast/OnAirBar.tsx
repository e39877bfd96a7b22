import { useQuery } from '@tanstack/react-query';
import { Link, useRouterState } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { stationQueries } from '../../queries/station.queries';
import { listenerLabel } from '../StationView';
import { useBroadcast } from './BroadcastProvider';

const STATE_LABEL = {
  capturing: 'Choosing a source',
  connecting: 'Connecting',
  live: 'On air',
  reconnecting: 'Reconnecting',
} as const;

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

function useNow(everyMs: number, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs, active]);
  return now;
}

/** "ON AIR · 12:34 · 3 listeners" on every page while this browser broadcasts, with a way back. */
export function OnAirBar() {
  const { state, station, liveSince } = useBroadcast();
  const busy = state !== 'idle' && station !== null;
  const now = useNow(1000, busy);
  const { data } = useQuery({ ...stationQueries.detail(station?.id ?? ''), enabled: busy });
  const inStudio = useRouterState({ select: (s) => s.location.pathname === '/studio' });
  if (!busy) return null;
  const count = data?.viewerCount ?? 0;
  return (
    <div className={`onair-bar onair-${state}`} data-testid="onair-bar" data-state={state}>
      <div className="container onair-row">
        <p className="onair-text">
          <span className="onair-dot" aria-hidden="true" />
          <strong className="onair-label">{STATE_LABEL[state]}</strong>
          {state === 'live' && liveSince ? (
            <>
              <span aria-hidden="true"> · </span>
              <time
                className="onair-elapsed"
                dateTime={`PT${Math.floor((now - liveSince) / 1000)}S`}
                data-testid="onair-elapsed"
              >
                {formatElapsed(now - liveSince)}
              </time>
            </>
          ) : null}
          <span aria-hidden="true"> · </span>
          <span data-testid="onair-listeners" data-count={count}>
            {listenerLabel(count)}
          </span>
          <span className="onair-station hide-sm">
            <span aria-hidden="true"> · </span>
            {station.name}
          </span>
        </p>
        {inStudio ? null : (
          <Link
            to="/studio"
            search={{ station: station.id }}
            className="btn btn-sm onair-link"
            data-testid="onair-studio-link"
          >
            Back to studio
          </Link>
        )}
      </div>
      {/* One announcement per change of state, not every second of the clock. */}
      <p className="sr-only" role="status">
        {state === 'live'
          ? `On air: ${station.name}`
          : state === 'reconnecting'
            ? 'Connection unstable, reconnecting'
            : ''}
      </p>
    </div>
  );
}
