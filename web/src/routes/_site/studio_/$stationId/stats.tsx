import type { BroadcastSummary, StationStats } from '@radiobroadcaster/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { lazy, Suspense, useMemo } from 'react';
import { z } from 'zod';
import { AuthRequiredOrError } from '../../../../components/AuthRequired';
import { StudioSubpage } from '../../../../components/StudioSubpage';
import { requireSession } from '../../../../lib/auth';
import { pageMeta, withSuffix } from '../../../../lib/seo';
import { stationQueries } from '../../../../queries/station.queries';
import { statsQueries, statsSearch, type StatsParams } from '../../../../queries/stats.queries';

const ListenersChart = lazy(() =>
  import('../../../../components/ListenersChart').then((m) => ({ default: m.ListenersChart })),
);

const RANGES = {
  '24h': { label: '24 hours', ms: 86_400_000 },
  '7d': { label: '7 days', ms: 7 * 86_400_000 },
  '30d': { label: '30 days', ms: 30 * 86_400_000 },
  '12m': { label: '12 months', ms: 365 * 86_400_000 },
} as const;
type Range = keyof typeof RANGES;

const StatsSearch = z.object({
  range: z.enum(['24h', '7d', '30d', '12m']).optional().catch(undefined),
  broadcast: z.string().uuid().optional().catch(undefined),
});

const TZ = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The query for a range ending now (rounded to the minute so it stays one cache entry a while). */
function paramsFor(range: Range, broadcast: string | undefined): StatsParams {
  if (broadcast) return { broadcastId: broadcast, tz: TZ };
  const to = Math.ceil(Date.now() / 60_000) * 60_000;
  return { from: new Date(to - RANGES[range].ms).toISOString(), tz: TZ };
}

export const Route = createFileRoute('/_site/studio_/$stationId/stats')({
  validateSearch: StatsSearch,
  loaderDeps: ({ search }) => ({ range: search.range ?? '7d', broadcast: search.broadcast }),
  beforeLoad: async ({ context: { queryClient } }) => ({
    session: await requireSession(queryClient),
  }),
  loader: async ({ context: { queryClient }, params, deps }) => {
    await queryClient.ensureQueryData(stationQueries.detail(params.stationId));
    const p = paramsFor(deps.range, deps.broadcast);
    await queryClient.ensureQueryData(statsQueries.station(params.stationId, p));
    return { params: p };
  },
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Listening stats'),
      description:
        'Listeners, listening time and where your station is heard, without tracking anyone.',
    }),
  }),
  errorComponent: AuthRequiredOrError,
  component: StatsPage,
});

function StatsPage() {
  const { stationId } = Route.useParams();
  const { range = '7d', broadcast } = Route.useSearch();
  const { params } = Route.useLoaderData();
  const { data: station } = useSuspenseQuery(stationQueries.detail(stationId));
  const { data: stats, isFetching } = useQuery({
    ...statsQueries.station(stationId, params),
    placeholderData: (prev) => prev,
  });
  if (!stats) return null;
  const one = broadcast ? stats.broadcasts[0] : undefined;
  return (
    <StudioSubpage
      station={station}
      title="Listening stats"
      testId="stats-page"
      intro="Counted on our servers from listening sessions: no cookies, no identifiers, no IP addresses kept."
    >
      <div className="stack" aria-busy={isFetching || undefined}>
        <div className="stats-toolbar">
          {broadcast ? (
            <p className="grow" data-testid="stats-scope">
              <Link to="." search={{ range }}>
                ← All broadcasts
              </Link>{' '}
              <span className="muted">
                Broadcast of {one ? formatDateTime(one.startedAt) : '…'}
                {one ? ` · ${duration(one)}` : ''}
              </span>
            </p>
          ) : (
            <nav className="segmented" aria-label="Period">
              {(Object.keys(RANGES) as Range[]).map((r) => (
                <Link
                  key={r}
                  to="."
                  search={{ range: r }}
                  className="segment"
                  aria-current={r === range ? 'true' : undefined}
                  data-testid={`range-${r}`}
                >
                  {RANGES[r].label}
                </Link>
              ))}
            </nav>
          )}
          <a
            className="btn btn-sm"
            href={`/api/stations/${stationId}/stats.csv${statsSearch(params)}`}
            download
            data-testid="stats-csv"
          >
            Export CSV
          </a>
        </div>
        <Tiles stats={stats} />
        <section className="card" aria-labelledby="chart-title">
          <h2 id="chart-title">Listeners over time</h2>
          <p className="muted small">
            Per {stats.interval}, {formatDateTime(stats.from)} – {formatDateTime(stats.to)} (
            {stats.tz})
          </p>
          <Suspense fallback={<div className="chart chart-loading" />}>
            <ListenersChart
              series={stats.series}
              interval={stats.interval}
              label={`Peak listeners per ${stats.interval}: at most ${stats.peakListeners}. The figures are in the table below.`}
            />
          </Suspense>
          <SeriesTable stats={stats} />
        </section>
        <div className="stats-grid">
          <Breakdown
            title="Where they listened"
            testId="by-domain"
            rows={stats.byDomain.map((d) => ({
              key: `${d.source}:${d.domain ?? ''}`,
              label:
                d.source === 'embed'
                  ? (d.domain ?? 'Embedded player')
                  : d.source === 'site'
                    ? 'Your station page'
                    : 'Apps and players',
              ...d,
            }))}
          />
          <Breakdown
            title="How"
            testId="by-transport"
            rows={named(stats.byTransport, 'transport', TRANSPORT_TEXT)}
          />
          <Breakdown
            title="Devices"
            testId="by-client"
            rows={named(stats.byClient, 'client', CLIENT_TEXT)}
          />
        </div>
        {broadcast ? null : <Broadcasts list={stats.broadcasts} range={range} />}
      </div>
    </StudioSubpage>
  );
}

type Row = BreakdownProps['rows'][number];

/** Rows keyed by one of their fields, named in words from `text`. */
function named<F extends string, K extends string>(
  rows: (Omit<Row, 'key' | 'label'> & Record<F, K>)[],
  field: F,
  text: Record<K, string>,
): Row[] {
  return rows.map((d) => ({ key: d[field], label: text[d[field]], ...d }));
}

const TRANSPORT_TEXT: Record<StationStats['byTransport'][number]['transport'], string> = {
  webrtc: 'Live player (WebRTC)',
  http: 'Stream URL (HTTP)',
};

const CLIENT_TEXT: Record<StationStats['byClient'][number]['client'], string> = {
  desktop: 'Computers',
  mobile: 'Phones and tablets',
  app: 'Our apps',
  player: 'Media players and speakers',
  bot: 'Bots',
  other: 'Other',
};

function Tiles({ stats }: { stats: StationStats }) {
  return (
    <dl className="tiles" data-testid="stats-tiles">
      <div className="tile">
        <dt>Peak listeners</dt>
        <dd data-testid="stat-peak">{stats.peakListeners.toLocaleString()}</dd>
        <dd className="tile-note muted small">
          {stats.peakAt ? formatDateTime(stats.peakAt) : 'no listeners yet'}
        </dd>
      </div>
      <div className="tile">
        <dt>Listening hours</dt>
        <dd data-testid="stat-hours">{formatHours(stats.listeningHours)}</dd>
        <dd className="tile-note muted small">summed over listeners</dd>
      </div>
      <div className="tile">
        <dt>Sessions</dt>
        <dd data-testid="stat-sessions">{stats.sessions.toLocaleString()}</dd>
        <dd className="tile-note muted small">times someone pressed play</dd>
      </div>
      <div className="tile">
        <dt>Median session</dt>
        <dd data-testid="stat-median">
          {stats.medianSessionSeconds === null ? '—' : formatDuration(stats.medianSessionSeconds)}
        </dd>
        <dd className="tile-note muted small">half listened longer</dd>
      </div>
    </dl>
  );
}

function SeriesTable({ stats }: { stats: StationStats }) {
  const rows = useMemo(
    () => stats.series.filter((p) => p.sessions || p.peakListeners || p.listeningHours),
    [stats.series],
  );
  return (
    <details className="log">
      <summary>
        Show as a table ({rows.length} {rows.length === 1 ? stats.interval : `${stats.interval}s`}{' '}
        with listeners)
      </summary>
      {rows.length === 0 ? (
        <p className="muted">No listeners in this period.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="sr-only">Listeners per {stats.interval}</caption>
            <thead>
              <tr>
                <th scope="col">{stats.interval === 'day' ? 'Day' : 'From'}</th>
                <NumberHeads names={['Peak listeners', 'Listening hours', 'Sessions']} />
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.t}>
                  <td>{stats.interval === 'day' ? formatDate(p.t) : formatDateTime(p.t)}</td>
                  <td className="num">{p.peakListeners}</td>
                  <td className="num">{formatHours(p.listeningHours)}</td>
                  <td className="num">{p.sessions}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

interface BreakdownProps {
  title: string;
  rows: { key: string; label: string; sessions: number; listeningHours: number }[];
  testId: string;
}

function Breakdown({ title, rows, testId }: BreakdownProps) {
  const total = rows.reduce((s, r) => s + r.listeningHours, 0);
  const id = `bd-${testId}`;
  return (
    <section className="card" aria-labelledby={id} data-testid={testId}>
      <h2 id={id}>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">No listeners in this period.</p>
      ) : (
        <ul className="bars">
          {rows.map((r) => {
            const share = total > 0 ? r.listeningHours / total : 0;
            return (
              <li key={r.key} data-key={r.key}>
                <div className="bar-label">
                  <span className="grow">{r.label}</span>
                  <span className="muted small">
                    {Math.round(share * 100)}% · {r.sessions}{' '}
                    {r.sessions === 1 ? 'session' : 'sessions'}
                  </span>
                </div>
                <span className="bar" aria-hidden="true">
                  <span style={{ width: `${Math.max(2, share * 100)}%` }} />
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Broadcasts({ list, range }: { list: BroadcastSummary[]; range: Range }) {
  return (
    <section className="card" aria-labelledby="broadcasts-title" data-testid="broadcasts">
      <h2 id="broadcasts-title">Broadcasts</h2>
      {list.length === 0 ? (
        <p className="muted">No broadcasts in this period.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Length</th>
                <NumberHeads names={['Peak', 'Hours', 'Sessions', 'Median']} />
              </tr>
            </thead>
            <tbody>
              {list.map((b) => (
                <tr key={b.id} data-testid="broadcast-row">
                  <td>
                    <Link to="." search={{ range, broadcast: b.id }}>
                      {formatDateTime(b.startedAt)}
                    </Link>
                    {b.endedAt ? null : <span className="pill pill-bad"> on air</span>}
                  </td>
                  <td>{duration(b)}</td>
                  <td className="num">{b.peakListeners}</td>
                  <td className="num">{formatHours(b.listeningHours)}</td>
                  <td className="num">{b.sessions}</td>
                  <td className="num">
                    {b.medianSessionSeconds === null ? '—' : formatDuration(b.medianSessionSeconds)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Headers of columns of figures (aligned right, as the figures are). */
function NumberHeads({ names }: { names: string[] }) {
  return names.map((name) => (
    <th key={name} scope="col" className="num">
      {name}
    </th>
  ));
}

function duration(b: BroadcastSummary): string {
  const end = b.endedAt ? Date.parse(b.endedAt) : Date.now();
  return formatDuration((end - Date.parse(b.startedAt)) / 1000);
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60 ? `${s % 60} s` : ''}`.trim();
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function formatHours(h: number): string {
  if (h === 0) return '0';
  if (h < 1) return `${Math.max(1, Math.round(h * 60))} min`;
  return h.toLocaleString(undefined, { maximumFractionDigits: 1 });
}

function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  });
}
