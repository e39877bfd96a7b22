import { randomUUID } from 'node:crypto';
import { open as openFile, stat } from 'node:fs/promises';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type {
  Recording,
  RecordingSetting,
  RecordingSettingRequest,
  UpdateRecordingRequest,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { AccessService } from '../access/access.service.js';
import { ListenGrants } from '../radio/listen-grants.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import { Recorder } from './recorder.js';
import { RecordingStorage } from './recording-storage.js';
import { type RecordingRow, RecordingsRepository } from './recordings.repository.js';
import { StationAudioTap } from './station-audio-tap.js';
import { recordingAccess, recordingVisibility, type RecordingViewer } from './recording-access.js';

interface Active {
  id: string;
  recorder: Recorder;
  unsubscribe: () => void;
  progress: NodeJS.Timeout;
}

/** How often the recording node saves its progress: its heartbeat. */
const PROGRESS_MS = 5000;
/** An open recording whose node has not beaten for this long belongs to a node that died. */
export const ORPHAN_AFTER_MS = 30_000;
const ORPHAN_SWEEP_MS = 30_000;
const RETENTION_SWEEP_MS = 3_600_000;

/**
 * Records broadcasts of stations whose owner turned recording on: from `station.live` to
 * `station.offline`/`ended`, so a publisher reconnecting within the grace period continues the
 * same file. The node that took the broadcast live records it.
 */
@Injectable()
export class RecordingsService
  implements OnModuleInit, OnModuleDestroy, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('Recordings');
  private readonly active = new Map<string, Active>();
  private readonly off: (() => void)[] = [];
  private sweepers: NodeJS.Timeout[] = [];

  constructor(
    @Inject(RecordingsRepository) private readonly repo: RecordingsRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StationAudioTap) private readonly tap: StationAudioTap,
    @Inject(RecordingStorage) private readonly storage: RecordingStorage,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
    @Inject(AccessService) private readonly access: AccessService,
  ) {}

  onModuleInit(): void {
    this.off.push(
      this.bus.subscribe('station.live', ({ stationId }, { local }) => {
        if (local) void this.begin(stationId);
      }),
      this.bus.subscribe('station.offline', ({ stationId }) => void this.end(stationId)),
      this.bus.subscribe('station.ended', ({ stationId }) => void this.end(stationId)),
      this.bus.subscribe('station.nowPlaying', ({ stationId, nowPlaying }) => {
        const a = this.active.get(stationId);
        if (!a) return;
        void this.repo
          .appendTimeline(a.id, {
            offsetSeconds: Math.round(a.recorder.durationSeconds * 10) / 10,
            track: nowPlaying?.track ?? null,
            artist: nowPlaying?.artist ?? null,
            album: nowPlaying?.album ?? null,
          })
          .catch((err: Error) => this.logger.warn(`timeline: ${err.message}`));
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sweep();
    this.sweepers.push(
      setInterval(() => void this.sweep({ retention: false }), ORPHAN_SWEEP_MS),
      setInterval(() => void this.sweep(), RETENTION_SWEEP_MS),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const t of this.sweepers) clearInterval(t);
    await Promise.all([...this.active.keys()].map((id) => this.end(id)));
  }

  // ---- recording ----

  /** Whether this node is recording the station now (for tests and metrics). */
  recording(stationId: string): Recorder | null {
    return this.active.get(stationId)?.recorder ?? null;
  }

  async begin(stationId: string): Promise<void> {
    try {
      if (this.active.has(stationId)) return;
      if (!(await this.repo.setting(stationId)).enabled) return;
      const id = randomUUID();
      const key = `${stationId}/${id}.ogg`;
      let row = await this.repo.create(stationId, id, key);
      if (!row) {
        // Another node records it, or a dead node left its recording open: close that one.
        if ((await this.closeOrphans(stationId)) === 0) return;
        row = await this.repo.create(stationId, id, key);
        if (!row) return;
      }
      if (!this.tap.available) {
        await this.repo.finish(id, {
          status: 'failed',
          error: 'Recording is not available on this server',
          durationSeconds: 0,
          sizeBytes: 0,
        });
        return;
      }
      const station = await this.stations.entity(stationId);
      const recorder = new Recorder(
        this.storage.localPath(row.storageKey),
        (error) => void this.fail(stationId, error),
      );
      await recorder.start({
        TITLE: station.name,
        ARTIST: station.broadcaster.name,
        DATE: row.startedAt.toISOString(),
      });
      const unsubscribe = this.tap.subscribe(stationId, (p) => recorder.push(p));
      const progress = setInterval(
        () =>
          void this.repo
            .progress(id, recorder.durationSeconds, recorder.sizeBytes)
            .catch(() => undefined),
        PROGRESS_MS,
      );
      this.active.set(stationId, { id, recorder, unsubscribe, progress });
    } catch (err) {
      this.logger.warn(`starting a recording of ${stationId}: ${(err as Error).message}`);
    }
  }

  async end(stationId: string): Promise<void> {
    const a = this.active.get(stationId);
    if (!a) return;
    this.active.delete(stationId);
    a.unsubscribe();
    clearInterval(a.progress);
    const stop = await a.recorder.stop();
    const finished = await this.repo.finish(a.id, {
      status: stop.reason === 'ended' ? 'ready' : 'failed',
      error: stop.reason === 'failed' ? stop.error : null,
      durationSeconds: a.recorder.durationSeconds,
      sizeBytes: a.recorder.sizeBytes,
    });
    if (!finished) return;
    await this.store(finished);
    if (finished.status === 'ready' && finished.visibility !== 'private') {
      await this.webhooks
        .emit(stationId, 'recording.ready', { recording: await this.view(finished) })
        .catch((err: Error) => this.logger.warn(`recording.ready: ${err.message}`));
    }
  }

  /** Moves a finished recording to the bucket when one is configured (else it stays local). */
  private async store(r: RecordingRow): Promise<void> {
    if (!this.storage.bucketConfigured || r.storage !== 'local') return;
    try {
      await this.storage.upload(r.storageKey);
      await this.repo.setStorage(r.id, 's3');
      r.storage = 's3';
    } catch (err) {
      // Another node's disk has it (that node uploads it), or nothing was written.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      // Kept locally and served from here; the sweep tries again.
      this.logger.warn(`uploading recording ${r.id}: ${(err as Error).message}`);
    }
  }

  /** A full disk: the recording stops with its reason; the broadcast goes on. */
  private async fail(stationId: string, error: string): Promise<void> {
    const a = this.active.get(stationId);
    if (!a) return;
    this.active.delete(stationId);
    a.unsubscribe();
    clearInterval(a.progress);
    await a.recorder.stop();
    this.logger.warn(`recording of ${stationId} stopped: ${error}`);
    const finished = await this.repo
      .finish(a.id, {
        status: 'failed',
        error,
        durationSeconds: a.recorder.durationSeconds,
        sizeBytes: a.recorder.sizeBytes,
      })
      .catch(() => null);
    if (finished) await this.store(finished);
  }

  /**
   * Closes recordings a dead node left open (keeping what it saved), uploads finished ones still
   * waiting for the bucket, and applies each station's retention.
   */
  async sweep(opts: { retention?: boolean } = {}): Promise<void> {
    try {
      await this.closeOrphans();
      if (this.storage.bucketConfigured) {
        for (const r of await this.repo.awaitingUpload()) await this.store(r);
      }
      if (opts.retention !== false) {
        for (const r of await this.repo.expired()) await this.removeRow(r);
      }
    } catch (err) {
      this.logger.warn(`sweep: ${(err as Error).message}`);
    }
  }

  /**
   * Finishes open recordings whose node stopped beating: playable up to the last page it flushed
   * when the file is here (the same machine restarted, or a shared directory). Returns how many.
   */
  private async closeOrphans(stationId?: string): Promise<number> {
    let closed = 0;
    for (const r of await this.repo.orphans(ORPHAN_AFTER_MS, stationId)) {
      if ([...this.active.values()].some((a) => a.id === r.id)) continue;
      const path = this.storage.localPath(r.storageKey);
      const info = await stat(path).catch(() => null);
      const duration = info ? await lastGranuleSeconds(path) : 0;
      const finished = await this.repo.finish(r.id, {
        status: duration > 0 ? 'ready' : 'failed',
        error: info
          ? 'The server stopped during the broadcast: the recording ends where it was last saved'
          : 'The server recording this broadcast stopped, and its file is not on this server',
        durationSeconds: duration,
        sizeBytes: info?.size ?? 0,
      });
      if (!finished) continue;
      closed++;
      if (info) await this.store(finished);
    }
    return closed;
  }

  // ---- owner and public calls ----

  async setting(userId: string, stationId: string): Promise<RecordingSetting> {
    await this.stations.owned(stationId, userId);
    return this.repo.setting(stationId);
  }

  async setSetting(userId: string, req: RecordingSettingRequest): Promise<RecordingSetting> {
    await this.stations.owned(req.stationId, userId);
    const current = await this.repo.setting(req.stationId);
    await this.repo.saveSetting({
      stationId: req.stationId,
      enabled: req.enabled,
      retentionDays: req.retentionDays === undefined ? current.retentionDays : req.retentionDays,
    });
    return this.repo.setting(req.stationId);
  }

  /** The recordings the caller may see listed ({@link recordingAccess}); `grant`: a private station's listening grant. */
  async list(stationId: string, userId: string | undefined, grant?: string): Promise<Recording[]> {
    const station = await this.stations.entity(stationId);
    const viewer = await this.viewer(station, userId, grant);
    const rows = (await this.repo.listByStation(stationId)).filter(
      (r) => recordingAccess(r, station, viewer).listed,
    );
    return Promise.all(rows.map((r) => this.view(r)));
  }

  async get(id: string, userId: string | undefined, grant?: string): Promise<Recording> {
    return this.view(await this.visible(id, userId, grant));
  }

  private async viewer(
    station: StationEntity,
    userId: string | undefined,
    grant: string | undefined,
  ): Promise<RecordingViewer> {
    const owner = station.broadcasterId === userId;
    let admitted = false;
    if (!owner && grant && station.visibility === 'private') {
      try {
        const claims = this.grants.verify(grant, station.id);
        admitted = await this.access.grantValid(station.id, claims);
      } catch {
        admitted = false;
      }
    }
    return { owner, admitted };
  }

  async byAddress(
    username: string,
    slug: string,
    id: string,
    userId: string | undefined,
    grant?: string,
  ): Promise<Recording> {
    const r = await this.visible(id, userId, grant);
    const station = await this.stations.entity(r.stationId);
    if (
      station.broadcaster.username !== username.toLowerCase() ||
      station.slug !== slug.toLowerCase()
    )
      throw AppError.notFound('Recording not found');
    return this.view(r);
  }

  async update(userId: string, req: UpdateRecordingRequest): Promise<Recording> {
    const r = await this.ownedRecording(req.recordingId, userId);
    const visibility =
      req.visibility !== undefined
        ? req.visibility
        : req.published === undefined
          ? undefined
          : req.published
            ? null
            : 'private';
    await this.repo.update(r.id, { title: req.title, visibility });
    return this.view((await this.repo.find(r.id))!);
  }

  async remove(userId: string, id: string): Promise<void> {
    const r = await this.ownedRecording(id, userId);
    if (r.status === 'recording')
      throw AppError.conflict('This recording is still going: end the broadcast first');
    await this.removeRow(r);
  }

  /** The file of a recording the caller may hear: a local path, or the bucket's object key. */
  async file(
    id: string,
    userId: string | undefined,
    grant?: string,
  ): Promise<
    { row: RecordingRow; listed: boolean } & ({ kind: 'local'; path: string } | { kind: 's3' })
  > {
    const row = await this.visible(id, userId, grant);
    const station = await this.stations.entity(row.stationId);
    const listed = recordingVisibility(row, station) === 'public';
    if (row.status === 'recording')
      throw AppError.conflict(
        'This recording is still going: it can be played when the broadcast ends',
      );
    return row.storage === 's3'
      ? { row, listed, kind: 's3' }
      : { row, listed, kind: 'local', path: this.storage.localPath(row.storageKey) };
  }

  private async visible(
    id: string,
    userId: string | undefined,
    grant?: string,
  ): Promise<RecordingRow> {
    const r = await this.repo.find(id);
    if (!r) throw AppError.notFound('Recording not found');
    const station = await this.stations.entity(r.stationId);
    // Not found rather than forbidden: a stranger learns nothing about a private recording.
    if (!recordingAccess(r, station, await this.viewer(station, userId, grant)).playable)
      throw AppError.notFound('Recording not found');
    return r;
  }

  private async ownedRecording(id: string, userId: string): Promise<RecordingRow> {
    return this.stations.ownedItem(await this.repo.find(id), 'Recording', userId);
  }

  private async removeRow(r: RecordingRow): Promise<void> {
    await this.storage.remove(r.storage, r.storageKey);
    await this.repo.delete(r.id);
  }

  async view(r: RecordingRow): Promise<Recording> {
    const station = await this.stations.entity(r.stationId);
    const page = `/${station.broadcaster.username}/${station.slug}/replays/${r.id}`;
    return {
      id: r.id,
      stationId: r.stationId,
      title:
        r.title ||
        `${station.name}, ${r.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      startedAt: r.startedAt.toISOString(),
      endedAt: r.endedAt?.toISOString() ?? null,
      durationSeconds: Math.round(r.durationSeconds * 100) / 100,
      sizeBytes: r.sizeBytes,
      status: r.status,
      error: r.error,
      published: recordingVisibility(r, station) !== 'private',
      visibility: recordingVisibility(r, station),
      visibilitySetting: r.visibility,
      url: `${this.config.publicUrl}/api/recordings/${r.id}/audio.ogg`,
      pageUrl: `${this.config.publicUrl}${page}`,
      timeline: r.timeline,
    };
  }
}

/** The last page's granule position as seconds (what a crash left is playable up to there). */
async function lastGranuleSeconds(path: string): Promise<number> {
  const f = await openFile(path, 'r');
  try {
    const { size } = await f.stat();
    const len = Math.min(size, 65536);
    const buf = Buffer.alloc(len);
    await f.read(buf, 0, len, size - len);
    for (let i = buf.lastIndexOf('OggS'); i >= 0; i = buf.lastIndexOf('OggS', i - 1)) {
      if (i + 14 > buf.length) continue;
      const granule = buf.readBigInt64LE(i + 6);
      if (granule > 0n) return Math.max(0, Number(granule - 312n) / 48000);
    }
    return 0;
  } finally {
    await f.close();
  }
}
