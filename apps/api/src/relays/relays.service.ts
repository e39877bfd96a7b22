import { randomUUID } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  type CreateRelayRequest,
  CreateRelayRequest as CreateRelaySchema,
  type NowPlaying,
  type Relay,
  RELAY_LIMITS,
  type RelayFormat,
  type RelayKind,
  type UpdateRelayRequest,
} from '@radiobroadcaster/contracts';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { AppError } from '../common/app-error.js';
import { OutboundPolicy } from '../common/outbound/outbound-policy.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media.providers.js';
import { StationsService } from '../stations/stations.service.js';
import type { StationRelayEntity } from './relay.entity.js';
import { RelayPusher, type RelayPusherOptions, type RelayStatus } from './relay-pusher.js';
import { RelaySecrets } from './relay-secrets.js';
import { type RelayChanges, RelaysRepository } from './relays.repository.js';

/** Options of the pushers (tests shorten the backoff). */
export const RELAY_PUSHER_OPTIONS = Symbol('RELAY_PUSHER_OPTIONS');

/** Shoutcast 2 takes MP3 (or AAC), never Ogg; Icecast and AzuraCast take the station untouched. */
function defaultFormat(kind: RelayKind): RelayFormat {
  return kind === 'shoutcast' ? 'mp3' : 'ogg';
}

const normaliseMount = (kind: RelayKind, mount: string) =>
  kind === 'shoutcast' && mount === '' ? '/1' : mount.startsWith('/') ? mount : `/${mount}`;

/** How often a running relay's status is checked, and sent again even when unchanged. */
const STATUS_CHECK_MS = 2000;
const STATUS_REFRESH_MS = 10_000;
/** A status another node sent is shown this long without news (that node may be gone). */
const STATUS_TTL_MS = 30_000;

/**
 * Outbound relays: owners keep a list per station (passwords encrypted at rest, never returned), and
 * while a station is live on this node each enabled relay is pushed by a {@link RelayPusher} fed
 * from the media engine's packet tap, whatever the station's source (studio, WHIP, Icecast). Changes
 * and statuses go over the event bus, so every node shows and edits a relay another node pushes.
 */
@Injectable()
export class RelaysService implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Relays');
  private readonly secrets: RelaySecrets;
  /** Stations live on this node (their publisher is here) → their running pushers by relay id. */
  private readonly live = new Map<string, Map<string, RelayPusher>>();
  private readonly off: (() => void)[] = [];
  /** Statuses of relays other nodes push, by relay id. */
  private readonly remote = new Map<string, { status: RelayStatus; at: number }>();
  /** What was last sent of each relay this node pushes (its status without the byte count). */
  private readonly sent = new Map<string, { key: string; at: number }>();
  private statusTimer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(RelaysRepository) private readonly repo: RelaysRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RELAY_PUSHER_OPTIONS) private readonly pusherOptions: RelayPusherOptions,
    @Inject(OutboundPolicy) private readonly outbound: OutboundPolicy,
  ) {
    this.secrets = new RelaySecrets(config.authSecret);
  }

  async onModuleInit(): Promise<void> {
    await this.pauseRefusedRelays();
    this.off.push(
      this.bus.subscribe('station.live', ({ stationId }, { local }) => {
        if (local) void this.startStation(stationId);
      }),
      this.bus.subscribe('station.offline', ({ stationId }) => this.stopStation(stationId)),
      this.bus.subscribe('station.ended', ({ stationId }) => this.stopStation(stationId)),
      this.bus.subscribe('station.deleted', ({ stationId }) => this.stopStation(stationId)),
      this.bus.subscribe('station.nowPlaying', ({ stationId, nowPlaying }) => {
        for (const p of this.live.get(stationId)?.values() ?? []) p.setTitle(titleOf(nowPlaying));
      }),
      this.bus.subscribe('relay.changed', ({ stationId, relayId }) => {
        void this.changed(stationId, relayId);
      }),
      this.bus.subscribe('relay.status', ({ relayId, status }, { local }) => {
        if (local) return;
        if (status) this.remote.set(relayId, { status, at: Date.now() });
        else this.remote.delete(relayId);
      }),
    );
    this.statusTimer = setInterval(() => this.sendStatuses(), STATUS_CHECK_MS);
    this.statusTimer.unref();
  }

  onModuleDestroy(): void {
    for (const off of this.off.splice(0)) off();
    if (this.statusTimer) clearInterval(this.statusTimer);
  }

  /**
   * At start-up: relays whose address the outbound policy refuses (saved before the policy, or
   * before the operator turned private networks off) are paused with the reason their owner sees.
   */
  private async pauseRefusedRelays(): Promise<void> {
    try {
      const rows = await this.repo.enabledAddresses();
      for (const row of rows) {
        const problem = this.outbound.urlProblem(row.url);
        if (!problem) continue;
        await this.repo.pause(row.id, `Paused: ${problem}`);
        this.logger.warn(`relay ${row.id} paused: ${problem}`);
      }
    } catch (err) {
      this.logger.warn(`checking relay addresses: ${(err as Error).message}`);
    }
  }

  /** The policy refused a running relay's address after DNS: paused, and every node is told. */
  private async pauseRefused(row: StationRelayEntity, reason: string): Promise<void> {
    try {
      await this.repo.pause(row.id, `Paused: ${reason}`);
      await this.announce(row);
    } catch (err) {
      this.logger.warn(`relay ${row.id} not paused: ${(err as Error).message}`);
    }
  }

  /** Each running relay's status, when it changed or has not been sent for a while. */
  private sendStatuses(): void {
    const now = Date.now();
    for (const [stationId, pushers] of this.live) {
      for (const [relayId, pusher] of pushers) {
        const status = pusher.status();
        const key = JSON.stringify({ ...status, bytesSent: 0 });
        const last = this.sent.get(relayId);
        if (last && last.key === key && now - last.at < STATUS_REFRESH_MS) continue;
        this.sent.set(relayId, { key, at: now });
        this.publishStatus(stationId, relayId, status);
      }
    }
  }

  private publishStatus(stationId: string, relayId: string, status: RelayStatus | null): void {
    void this.bus
      .publish('relay.status', { stationId, relayId, status })
      .catch((err: Error) => this.logger.warn(`relay status: ${err.message}`));
  }

  beforeApplicationShutdown(): void {
    for (const id of [...this.live.keys()]) this.stopStation(id);
  }

  async list(userId: string, stationId: string): Promise<Relay[]> {
    await this.stations.owned(stationId, userId);
    const rows = await this.repo.listOf(stationId);
    return rows.map((r) => this.view(r));
  }

  async create(userId: string, input: CreateRelayRequest): Promise<Relay> {
    const req = CreateRelaySchema.parse(input);
    await this.stations.owned(req.stationId, userId);
    const count = await this.repo.countOf(req.stationId);
    if (count >= RELAY_LIMITS.perStation) {
      throw AppError.conflict(`A station can have at most ${RELAY_LIMITS.perStation} relays`);
    }
    this.outbound.assertUrl(req.url);
    const format = req.format ?? defaultFormat(req.kind);
    checkFormat(req.kind, format);
    checkMount(req.kind, req.mount);
    const id = randomUUID();
    const saved = await this.repo.insert({
      id,
      stationId: req.stationId,
      kind: req.kind,
      url: req.url,
      mount: normaliseMount(req.kind, req.mount),
      username: req.username || 'source',
      passwordEncrypted: this.secrets.encrypt(req.password, id),
      format,
      enabled: req.enabled,
    });
    await this.announce(saved);
    return this.view(saved);
  }

  async update(userId: string, req: UpdateRelayRequest): Promise<Relay> {
    const row = await this.owned(userId, req.relayId);
    const next: RelayChanges = {};
    if (req.url !== undefined) this.outbound.assertUrl(req.url);
    else if (req.enabled) this.outbound.assertUrl(row.url);
    if (req.url !== undefined) next.url = req.url;
    if (req.mount !== undefined) checkMount(row.kind, req.mount);
    if (req.mount !== undefined) next.mount = normaliseMount(row.kind, req.mount);
    if (req.username !== undefined) next.username = req.username || 'source';
    if (req.password !== undefined) {
      next.passwordEncrypted = this.secrets.encrypt(req.password, row.id);
    }
    if (req.format !== undefined) {
      checkFormat(row.kind, req.format);
      next.format = req.format;
    }
    if (req.enabled !== undefined) next.enabled = req.enabled;
    // A new address lifts a pause the policy made; resuming (or pausing) replaces it.
    if (row.pausedReason && req.url !== undefined && req.url !== row.url) {
      next.pausedReason = null;
      next.enabled = req.enabled ?? true;
    }
    if (req.enabled !== undefined) next.pausedReason = null;
    const saved = await this.repo.update(row.id, next);
    await this.announce(saved);
    return this.view(saved);
  }

  async remove(userId: string, relayId: string): Promise<void> {
    const row = await this.owned(userId, relayId);
    await this.repo.delete(row.id);
    await this.announce(row);
  }

  /** Tells every node (this one included) that a relay changed: the one pushing it starts it over. */
  private async announce(row: StationRelayEntity): Promise<void> {
    await this.bus
      .publish('relay.changed', { stationId: row.stationId, relayId: row.id })
      .catch((err: Error) => this.logger.warn(`relay change: ${err.message}`));
  }

  /** Running pushers on this node (metrics, tests). */
  runningCount(): number {
    let n = 0;
    for (const m of this.live.values()) n += m.size;
    return n;
  }

  private async owned(userId: string, relayId: string): Promise<StationRelayEntity> {
    return this.stations.ownedItem(await this.repo.findById(relayId), 'Relay', userId);
  }

  private view(r: StationRelayEntity): Relay {
    const pusher = this.live.get(r.stationId)?.get(r.id);
    const remote = this.remote.get(r.id);
    const fresh = remote && Date.now() - remote.at < STATUS_TTL_MS ? remote.status : undefined;
    const status: RelayStatus = pusher?.status() ??
      (r.enabled ? fresh : undefined) ?? {
        state: r.enabled ? 'idle' : 'disabled',
        lastError: null,
        retryAt: null,
        since: null,
        bytesSent: 0,
      };
    return {
      id: r.id,
      stationId: r.stationId,
      kind: r.kind,
      url: r.url,
      mount: r.mount,
      username: r.username,
      hasPassword: r.passwordEncrypted.length > 0,
      format: r.format,
      enabled: r.enabled,
      pausedReason: r.pausedReason,
      createdAt: r.createdAt.toISOString(),
      status,
    };
  }

  private async startStation(stationId: string): Promise<void> {
    if (!this.live.has(stationId)) this.live.set(stationId, new Map());
    try {
      const rows = await this.repo.enabledOf(stationId);
      for (const row of rows) await this.startRelay(row);
    } catch (err) {
      this.logger.warn(`relays of ${stationId} not started: ${(err as Error).message}`);
    }
  }

  private stopStation(stationId: string): void {
    const pushers = this.live.get(stationId);
    if (!pushers) return;
    for (const relayId of [...pushers.keys()]) this.stopRelay(stationId, relayId);
    this.live.delete(stationId);
  }

  /** A changed relay of a station live here starts over with its new settings (or stops). */
  private async changed(stationId: string, relayId: string): Promise<void> {
    if (!this.live.has(stationId)) return;
    this.stopRelay(stationId, relayId);
    try {
      const row = await this.repo.findById(relayId);
      if (row?.enabled) await this.startRelay(row);
    } catch (err) {
      this.logger.warn(`relay ${relayId} not restarted: ${(err as Error).message}`);
    }
  }

  private stopRelay(stationId: string, relayId: string): void {
    const pushers = this.live.get(stationId);
    const pusher = pushers?.get(relayId);
    if (!pusher) return;
    pusher.stop();
    pushers!.delete(relayId);
    this.sent.delete(relayId);
    this.publishStatus(stationId, relayId, null);
  }

  private async startRelay(row: StationRelayEntity): Promise<void> {
    const pushers = this.live.get(row.stationId);
    if (!pushers || pushers.has(row.id)) return;
    const station = await this.stations.entity(row.stationId);
    if (this.live.get(row.stationId) !== pushers || pushers.has(row.id)) return;
    const password = this.secrets.decrypt(row.passwordEncrypted, row.id);
    const username = station.broadcaster?.username ?? '';
    const pusher = new RelayPusher(
      {
        kind: row.kind,
        url: row.url,
        mount: row.mount,
        username: row.username,
        password: password ?? '',
        format: row.format,
        name: station.name,
        description: station.description || 'Live radio streaming.',
        pageUrl: `${this.config.publicUrl}/${username}/${station.slug}`,
      },
      this.outbound,
      (onPacket) => this.engine.tap(row.stationId, onPacket),
      (message) => this.logger.log(message),
      this.pusherOptions,
      (reason) => void this.pauseRefused(row, reason),
    );
    pushers.set(row.id, pusher);
    pusher.setTitle(
      station.nowPlayingTrack
        ? titleOf({ track: station.nowPlayingTrack, artist: station.nowPlayingArtist })
        : null,
    );
    if (password === null) {
      pusher.unusable(
        "the saved password can no longer be read (the server's secret changed): enter it again",
      );
      return;
    }
    pusher.start();
  }
}

/** Now playing as the one line radio servers show: "Artist - Track". */
function titleOf(np: Pick<NowPlaying, 'track' | 'artist'> | null): string | null {
  if (!np) return null;
  return np.artist ? `${np.artist} - ${np.track}` : np.track;
}

function checkFormat(kind: RelayKind, format: RelayFormat): void {
  if (kind === 'shoutcast' && format !== 'mp3') {
    throw AppError.validation('Shoutcast servers take MP3 only', [
      { path: 'format', message: 'Shoutcast servers take MP3 only' },
    ]);
  }
}

function checkMount(kind: RelayKind, mount: string): void {
  if (kind !== 'shoutcast' && mount.replace(/^\/+/, '') === '') {
    throw AppError.validation('Enter the mount, such as /live.ogg', [
      { path: 'mount', message: 'Enter the mount, such as /live.ogg' },
    ]);
  }
}
