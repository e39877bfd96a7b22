import { z } from 'zod';

/** How a listener heard the station. */
export const LISTENING_TRANSPORTS = ['webrtc', 'http'] as const;
export type ListeningTransport = (typeof LISTENING_TRANSPORTS)[number];

/** Where: a player embedded on another site, our own pages, or no web page at all (apps, players). */
export const LISTENING_SOURCES = ['embed', 'site', 'direct'] as const;
export type ListeningSource = (typeof LISTENING_SOURCES)[number];

/** A coarse kind of client from the User-Agent; nothing finer is kept. */
export const CLIENT_KINDS = ['desktop', 'mobile', 'app', 'player', 'bot', 'other'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const STATS_INTERVALS = ['minute', 'hour', 'day'] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];

export const STATS_LIMITS = {
  /** Most points a series may have. */
  maxPoints: 2000,
  /** The longest range one request may ask for. */
  maxRangeDays: 800,
} as const;

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time')
  .transform((s) => new Date(s));

/** An IANA time zone name this runtime knows (`Europe/Berlin`). */
export const TimeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as Europe/Paris');

/** `GET /api/stations/{id}/stats?from=&to=&interval=&tz=&broadcastId=` */
export const StatsQuery = z
  .strictObject({
    from: isoDate.optional(),
    to: isoDate.optional(),
    interval: z.enum(STATS_INTERVALS).optional(),
    /** Days of a `day` series start at midnight in this zone (default UTC). */
    tz: TimeZone.optional(),
    /** One broadcast: its own span and only its sessions. */
    broadcastId: z.string().uuid({ message: 'must be a UUID' }).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, {
    message: 'must be after from',
    path: ['to'],
  });
export type StatsQuery = z.infer<typeof StatsQuery>;

export interface StatsBreakdown {
  sessions: number;
  listeningHours: number;
}

export interface StatsPoint {
  /** Start of the interval (ISO). */
  t: string;
  peakListeners: number;
  listeningHours: number;
  sessions: number;
}

export interface BroadcastSummary {
  id: string;
  startedAt: string;
  /** null while it is on air. */
  endedAt: string | null;
  peakListeners: number;
  listeningHours: number;
  sessions: number;
  medianSessionSeconds: number | null;
}

/** `GET /api/stations/{id}/stats` (owner only). */
export interface StationStats {
  stationId: string;
  /** The range the figures cover (snapped to whole intervals). */
  from: string;
  to: string;
  interval: StatsInterval;
  tz: string;
  broadcastId: string | null;
  /** Most listeners at the same moment. */
  peakListeners: number;
  peakAt: string | null;
  /** Time listened, summed over every listener. */
  listeningHours: number;
  /** Listening sessions that started in the range. */
  sessions: number;
  /** Median length of the sessions that ended in the range; null when none did. */
  medianSessionSeconds: number | null;
  byDomain: (StatsBreakdown & { source: ListeningSource; domain: string | null })[];
  byTransport: (StatsBreakdown & { transport: ListeningTransport })[];
  byClient: (StatsBreakdown & { client: ClientKind })[];
  series: StatsPoint[];
  broadcasts: BroadcastSummary[];
}
