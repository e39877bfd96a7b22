import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ErrorTag, type Station } from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { EventBus } from '../events/event-bus.js';
import { PresenceService } from './presence.service.js';
import { type JsonDoc, jsonDoc } from '../common/json-doc.js';
import { STATION_CHANGES, toStation, withViewerCount } from './station.view.js';
import { StationsRepository } from './stations.repository.js';

const DISCOVER_LIMIT = 50;
/** Bounds on what one node keeps (a station is about 1 KB with its rendered body). */
const MAX_STATIONS = 50_000;
const MAX_USERS = 10_000;
const MAX_MISSING = 10_000;

/** Events after which a station's cached state (and the lists that show it) may be wrong. */
const DROPPED_ON = [...STATION_CHANGES, 'station.deleted'] as const;

/** A station as stored (viewerCount 0) and its last rendering. */
class StationEntry {
  private rendered: { viewerCount: number; doc: JsonDoc } | undefined;
  constructor(readonly station: Station) {}

  doc(viewerCount: number): JsonDoc {
    if (this.rendered?.viewerCount !== viewerCount) {
      this.rendered = { viewerCount, doc: jsonDoc(withViewerCount(this.station, viewerCount)) };
    }
    return this.rendered.doc;
  }
}

/** A list of stations (discover, a broadcaster's page) rendered for one set of counts. */
class ListEntry<Extra extends object> {
  private rendered: { presence: number; doc: JsonDoc } | undefined;
  constructor(
    readonly stations: Station[],
    private readonly extra: Extra,
  ) {}

  doc(presence: PresenceService): JsonDoc {
    if (this.rendered?.presence !== presence.version) {
      const stations = this.stations.map((s) => withViewerCount(s, presence.viewerCount(s.id)));
      this.rendered = { presence: presence.version, doc: jsonDoc({ ...this.extra, stations }) };
    }
    return this.rendered.doc;
  }
}

type UserExtra = {
  user: { id: string; username: string; name: string; avatarUrl: string | null };
};

/**
 * The public reads (a station, discover, a broadcaster's stations, username/slug) served from
 * memory on every API node. Lifecycle events drop what they change, on every node, and the next
 * read loads it once from the database; viewerCount comes from presence at each read, so it is
 * exact without a reload. While the bus may be losing events (Redis away) reads go to the
 * database and nothing is kept; when it is back the whole view is dropped.
 */
@Injectable()
export class StationReadModel implements OnModuleDestroy {
  private readonly logger = new Logger('StationReadModel');
  private readonly stations = new Map<string, StationEntry>();
  /** Ids known not to exist (station ids are random UUIDs, never reused). */
  private readonly missing = new Set<string>();
  private discoverList: ListEntry<object> | undefined;
  /** By lowercased username. */
  private readonly users = new Map<string, ListEntry<UserExtra> & { userId: string }>();
  /** `username/slug` → station id. */
  private readonly slugs = new Map<string, { stationId: string; userId: string }>();
  /** One database load per key at a time; concurrent misses share it. */
  private readonly loading = new Map<string, Promise<unknown>>();
  /** Bumped by every invalidation: a load that saw it change keeps nothing. */
  private generation = 0;
  private readonly unsubscribers: (() => void)[];

  constructor(
    @Inject(StationsRepository) private readonly repo: StationsRepository,
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {
    this.unsubscribers = [
      ...DROPPED_ON.map((name) =>
        bus.subscribe(name, ({ stationId }) => this.dropStation(stationId)),
      ),
      bus.subscribe('station.created', ({ stationId, broadcasterId }) => {
        this.missing.delete(stationId);
        this.dropUser(broadcasterId, false);
      }),
      bus.subscribe('user.updated', ({ userId }) => this.dropUser(userId, true)),
      // a station joining or leaving the public lists
      bus.subscribe('station.visibilityChanged', () => this.clear()),
      bus.subscribe('user.deleted', ({ userId }) => this.dropUser(userId, true)),
      bus.onResync(() => {
        this.logger.log('event bus reconnected: dropping the cached station view');
        this.clear();
      }),
    ];
  }

  /** The station with its current viewerCount, or null. Used by the socket gateway. */
  async station(id: string): Promise<Station | null> {
    const entry = await this.stationEntry(id);
    return entry ? withViewerCount(entry.station, this.presence.viewerCount(id)) : null;
  }

  /** The rendered station when it is in memory (no promise on the hot path), else undefined. */
  cachedStationDoc(id: string): JsonDoc | undefined {
    return this.stations.get(id)?.doc(this.presence.viewerCount(id));
  }

  /** GET /api/stations/{id}. */
  async stationDoc(id: string): Promise<JsonDoc> {
    const entry = await this.stationEntry(id);
    if (!entry) throw AppError.stationNotFound();
    return entry.doc(this.presence.viewerCount(id));
  }

  /** GET /api/stations/discover: live stations first, then the most recently active. */
  async discoverDoc(): Promise<JsonDoc> {
    const list =
      this.discoverList ??
      (await this.load(
        'discover',
        async () => new ListEntry((await this.repo.discover(DISCOVER_LIMIT)).map(snapshot), {}),
        (list) => {
          this.discoverList = list;
          for (const s of list.stations) this.keep(s);
        },
      ));
    return list.doc(this.presence);
  }

  /** GET /api/users/{username}/stations. */
  async userStationsDoc(username: string): Promise<JsonDoc> {
    const key = username.toLowerCase();
    const list =
      this.users.get(key) ??
      (await this.load(
        `user:${key}`,
        async () => {
          const user = await this.repo.findUserByUsername(key);
          if (!user) return null;
          const stations = (await this.repo.findByBroadcaster(user.id)).map(snapshot);
          const extra = {
            user: { id: user.id, username: user.username, name: user.name, avatarUrl: user.image },
          };
          return Object.assign(new ListEntry(stations, extra), { userId: user.id });
        },
        (list) => {
          if (!list) return;
          if (this.users.size >= MAX_USERS) this.users.clear();
          this.users.set(key, list);
          for (const s of list.stations) this.keep(s);
        },
      ));
    if (!list) throw new AppError(ErrorTag.UserNotFound, 'User not found');
    return list.doc(this.presence);
  }

  /**
   * GET /api/users/{username}/stations for the signed-in owner: every station of theirs, unlisted
   * and private too, never cached (the public list shows public ones only).
   */
  async ownerStationsDoc(username: string, userId: string): Promise<JsonDoc | null> {
    const user = await this.repo.findUserByUsername(username);
    if (!user || user.id !== userId) return null;
    const stations = (await this.repo.findAllByBroadcaster(user.id)).map((e) =>
      withViewerCount(snapshot(e), this.presence.viewerCount(e.id)),
    );
    return jsonDoc({
      user: { id: user.id, username: user.username, name: user.name, avatarUrl: user.image },
      stations,
    });
  }

  /** Whether a user has this username (the profile page's status), from the same cached list. */
  async hasUser(username: string): Promise<boolean> {
    try {
      await this.userStationsDoc(username);
      return true;
    } catch (e) {
      if (e instanceof AppError && e.tag === ErrorTag.UserNotFound) return false;
      throw e;
    }
  }

  /** GET /api/users/{username}/stations/{slug}. */
  async stationBySlugDoc(username: string, slug: string): Promise<JsonDoc> {
    const entry = await this.slugEntry(username, slug);
    if (!entry) throw AppError.stationNotFound();
    return entry.doc(this.presence.viewerCount(entry.station.id));
  }

  /** The station at `username/slug` with its current viewerCount, or null (page metadata). */
  async stationBySlug(username: string, slug: string): Promise<Station | null> {
    const entry = await this.slugEntry(username, slug);
    return entry
      ? withViewerCount(entry.station, this.presence.viewerCount(entry.station.id))
      : null;
  }

  private async slugEntry(username: string, slug: string): Promise<StationEntry | null> {
    const key = `${username.toLowerCase()}/${slug.toLowerCase()}`;
    const known = this.slugs.get(key);
    if (known) return this.stationEntry(known.stationId);
    const station = await this.load(
      `slug:${key}`,
      async () => {
        const user = await this.repo.findUserByUsername(username);
        const e = user ? await this.repo.findBySlug(user.id, slug.toLowerCase()) : null;
        return e ? snapshot(e) : null;
      },
      (s) => {
        if (!s) return;
        if (this.slugs.size >= MAX_STATIONS) this.slugs.clear();
        this.slugs.set(key, { stationId: s.id, userId: s.broadcasterId });
        this.keep(s);
      },
    );
    return station ? (this.stations.get(station.id) ?? new StationEntry(station)) : null;
  }

  private async stationEntry(id: string): Promise<StationEntry | null> {
    const cached = this.stations.get(id);
    if (cached) return cached;
    if (this.missing.has(id)) return null;
    const station = await this.load(
      `station:${id}`,
      async () => {
        const e = await this.repo.findById(id);
        return e ? snapshot(e) : null;
      },
      (s) => {
        if (s) this.keep(s);
        else {
          if (this.missing.size >= MAX_MISSING) this.missing.clear();
          this.missing.add(id);
        }
      },
    );
    return station ? (this.stations.get(id) ?? new StationEntry(station)) : null;
  }

  /**
   * Runs `fetch` once for concurrent callers; `store` keeps the result only if nothing was
   * invalidated meanwhile and the bus delivered every event in between.
   */
  private load<T>(key: string, fetch: () => Promise<T>, store: (value: T) => void): Promise<T> {
    const running = this.loading.get(key) as Promise<T> | undefined;
    if (running) return running;
    const generation = this.generation;
    const synced = this.bus.synced;
    const promise = fetch()
      .then((value) => {
        if (synced && this.bus.synced && generation === this.generation) store(value);
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
      });
    this.loading.set(key, promise);
    return promise;
  }

  private keep(station: Station): void {
    if (this.stations.has(station.id)) return;
    if (this.stations.size >= MAX_STATIONS) {
      // Oldest first: Map iteration follows insertion order.
      const oldest = this.stations.keys().next().value;
      if (oldest !== undefined) this.stations.delete(oldest);
    }
    this.stations.set(station.id, new StationEntry(station));
  }

  private invalidated(): void {
    this.generation++;
    // Readers arriving after the change must not join a load that started before it.
    this.loading.clear();
    this.discoverList = undefined;
  }

  private dropStation(stationId: string): void {
    this.invalidated();
    this.stations.delete(stationId);
    for (const [key, list] of this.users) {
      if (list.stations.some((s) => s.id === stationId)) this.users.delete(key);
    }
    for (const [key, s] of this.slugs) if (s.stationId === stationId) this.slugs.delete(key);
  }

  /** `stations`: the user's name shows in their stations too (a rename, a deletion). */
  private dropUser(userId: string, stations: boolean): void {
    this.invalidated();
    for (const [key, list] of this.users) if (list.userId === userId) this.users.delete(key);
    if (!stations) return;
    for (const [id, e] of this.stations) {
      if (e.station.broadcasterId === userId) this.stations.delete(id);
    }
    for (const [key, s] of this.slugs) if (s.userId === userId) this.slugs.delete(key);
  }

  private clear(): void {
    this.invalidated();
    this.stations.clear();
    this.missing.clear();
    this.users.clear();
    this.slugs.clear();
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribers) u();
  }
}

/** The stored state of a station; viewerCount is filled in at each read. */
function snapshot(e: Parameters<typeof toStation>[0]): Station {
  return toStation(e, 0);
}
