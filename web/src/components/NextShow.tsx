import {
  nextShow,
  showCountdown,
  type ShowsResponse,
  type Station,
} from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiFetch } from '../lib/api';
import { isOnAir } from './StationView';

/** The clock, ticking every `ms` (the countdown needs no finer step than its minutes). */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

/**
 * "Next live in 2 h 13 min — Friday Night Jazz" while the station is off air and a show is coming
 * (in the visitor's own time on hover); gone by itself once the station goes live.
 */
export function NextShow({ station }: { station: Station }) {
  const onAir = isOnAir(station);
  const { data } = useQuery({
    queryKey: ['stations', station.id, 'shows', 'next'],
    queryFn: () => apiFetch<ShowsResponse>(`/api/stations/${encodeURIComponent(station.id)}/shows`),
    enabled: !onAir,
    refetchInterval: 5 * 60_000,
  });
  const now = useNow(15_000);
  const next = !onAir && data ? nextShow(data.occurrences, now) : null;
  if (!next) return null;
  const when = new Date(next.startsAt).toLocaleString(undefined, {
    weekday: 'long',
    hour: 'numeric',
    minute: '2-digit',
  });
  return (
    <p className="next-show" data-testid="next-show">
      <time dateTime={next.startsAt} title={when}>
        Next live {showCountdown(next.startsAt, now)}
      </time>{' '}
      — <strong>{next.title}</strong>
    </p>
  );
}
