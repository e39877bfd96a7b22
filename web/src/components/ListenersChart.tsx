import type { StatsInterval, StatsPoint } from '@radiobroadcaster/contracts';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * Peak listeners per interval (area) and listening hours (line, right axis), drawn by uPlot on a
 * canvas; the same figures are in the table next to it for screen readers and keyboard users.
 */
export function ListenersChart({
  series,
  interval,
  label,
}: {
  series: StatsPoint[];
  interval: StatsInterval;
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const color = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
    const accent = color('--accent', '#ff5a5f');
    const ok = color('--ok', '#39d98a');
    const muted = color('--muted', '#a3acbf');
    const grid = color('--border', '#2a3040');
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const data: uPlot.AlignedData = [
      series.map((p) => Date.parse(p.t) / 1000),
      series.map((p) => p.peakListeners),
      series.map((p) => p.listeningHours),
    ];
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: Math.max(200, Math.min(320, Math.round(el.clientWidth * 0.4))),
        cursor: { drag: { x: false, y: false } },
        legend: { show: true },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { ...axis, values: interval === 'day' ? '{MMM} {D}' : undefined },
          { ...axis, label: 'listeners', size: 50 },
          { ...axis, side: 1, scale: 'h', label: 'hours', size: 50, grid: { show: false } },
        ],
        series: [
          {},
          {
            label: 'Peak listeners',
            stroke: accent,
            fill: `${accent}33`,
            width: 2,
            paths: uPlot.paths.stepped?.({ align: 1 }),
          },
          { label: 'Listening hours', stroke: ok, width: 2, scale: 'h' },
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({
        width: el.clientWidth,
        height: Math.max(200, Math.min(320, Math.round(el.clientWidth * 0.4))),
      }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, interval]);
  return (
    <div ref={box} className="chart" role="img" aria-label={label} data-testid="listeners-chart" />
  );
}
