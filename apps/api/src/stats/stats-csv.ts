import type { StationStats } from '@radiobroadcaster/contracts';

/** The series as CSV: one row per interval, ISO times in UTC. */
export function statsCsv(stats: StationStats): string {
  const lines = ['interval_start,peak_listeners,listening_hours,sessions'];
  for (const p of stats.series)
    lines.push(`${p.t},${p.peakListeners},${p.listeningHours},${p.sessions}`);
  return `${lines.join('\r\n')}\r\n`;
}
