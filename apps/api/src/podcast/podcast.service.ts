import { Inject, Injectable } from '@nestjs/common';
import type {
  PodcastEpisode,
  PodcastResponse,
  Recording,
  UpdateEpisodeRequest,
} from '@radiobroadcaster/contracts';
import { AccessService } from '../access/access.service.js';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { loadSharp } from '../images/image-processing.js';
import { ImagesService } from '../images/images.service.js';
import { isPubliclyListed } from '../recordings/recording-listing.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { chaptersJson, podcastXml } from './podcast-feed.js';
import { PodcastRepository } from './podcast.repository.js';

const ARTWORK_SIZE = 1400;

/** A station's public replays as a podcast; owners edit episodes' titles and notes, or drop them. */
@Injectable()
export class PodcastService {
  constructor(
    @Inject(RecordingsService) private readonly recordings: RecordingsService,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(ImagesService) private readonly images: ImagesService,
    @Inject(PodcastRepository) private readonly repo: PodcastRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AccessService) private readonly access: AccessService,
  ) {}

  private async station(username: string, slug: string): Promise<StationEntity> {
    const station = await this.stations.byAddress(username, slug);
    if (!station) throw AppError.stationNotFound();
    return station;
  }

  private base(s: StationEntity): string {
    return `${this.config.publicUrl}/${s.broadcaster.username}/${s.slug}`;
  }

  /**
   * Finished replays not dropped from the feed, newest first: the publicly listed ones, or with a
   * private station's listening `grant` (from a feed key) those its listeners see.
   */
  private async episodes(s: StationEntity, grant?: string) {
    const all = (await this.recordings.list(s.id, undefined, grant)).filter(
      (r) => (grant || isPubliclyListed(r)) && r.status === 'ready' && r.durationSeconds > 0,
    );
    const edits = await this.repo.byRecordings(all.map((r) => r.id));
    return all
      .map((r) => ({ r, edit: edits.get(r.id) }))
      .filter(({ edit }) => edit?.inFeed !== false);
  }

  /**
   * The feed; a private station's needs a subscriber's feed `key` (403 without, or once their
   * access is revoked), and its audio and chapter links carry a listening grant.
   */
  async feed(
    username: string,
    slug: string,
    key?: unknown,
  ): Promise<{ xml: string; personal: boolean }> {
    const s = await this.station(username, slug);
    const access = await this.access.feedAccess(s, key);
    const grant = access?.grant;
    const withGrant = (url: string) =>
      grant ? `${url}${url.includes('?') ? '&' : '?'}grant=${encodeURIComponent(grant)}` : url;
    const base = this.base(s);
    const list = await this.episodes(s, grant);
    const xml = podcastXml(
      {
        title: s.name,
        description:
          s.description ||
          `Live broadcasts of ${s.name} by @${s.broadcaster.username}, as replays.`,
        author: s.broadcaster.name || s.broadcaster.username,
        link: base,
        feedUrl: `${base}/podcast.xml${typeof key === 'string' && access ? `?key=${encodeURIComponent(key)}` : ''}`,
        artworkUrl: `${base}/podcast.jpg${s.coverImageId ? `?v=${s.coverImageId.slice(0, 8)}` : ''}`,
      },
      list.map(({ r, edit }) => ({
        recording: { ...r, url: withGrant(r.url) },
        title: r.title,
        notes: edit?.notes ?? '',
        chaptersUrl: r.timeline.some((e) => e.track)
          ? withGrant(`${this.config.publicUrl}/api/recordings/${r.id}/chapters.json`)
          : null,
      })),
    );
    return { xml, personal: access !== null };
  }

  /**
   * JSON chapters from the now-playing timeline: publicly listed replays, or with a private
   * station's listening `grant` the ones its listeners may hear.
   */
  async chapters(recordingId: string, grant?: string) {
    const r = await this.recordings.get(recordingId, undefined, grant);
    if (!grant && !isPubliclyListed(r)) throw AppError.notFound('Recording not found');
    return chaptersJson(r.timeline, r.durationSeconds);
  }

  /** Square JPEG artwork (1400×1400, what podcast directories ask for): the cover, or the station card. */
  async artwork(username: string, slug: string): Promise<Buffer> {
    const s = await this.station(username, slug);
    const cover = s.coverImageId ? await this.images.image(s.coverImageId) : null;
    const sharp = await loadSharp();
    if (cover)
      return sharp(cover.bytes)
        .resize(ARTWORK_SIZE, ARTWORK_SIZE, { fit: 'cover' })
        .jpeg({ quality: 85 })
        .toBuffer();
    const { png } = await this.images.stationCard(s.id);
    return sharp(png)
      .resize(ARTWORK_SIZE, ARTWORK_SIZE, { fit: 'contain', background: '#0b0d12' })
      .flatten({ background: '#0b0d12' })
      .jpeg({ quality: 85 })
      .toBuffer();
  }

  // ---- owner ----

  async list(userId: string, stationId: string): Promise<PodcastResponse> {
    const s = await this.stations.owned(stationId, userId);
    const all = (await this.recordings.list(stationId, userId)).filter(
      (r) => r.status !== 'recording',
    );
    const edits = await this.repo.byRecordings(all.map((r) => r.id));
    return {
      // a private station's: the owner's own secret address
      feedUrl: (await this.access.feeds(s.id, userId, undefined)).podcastUrl,
      episodes: all.map((r) => episode(r, edits.get(r.id))),
    };
  }

  async update(userId: string, req: UpdateEpisodeRequest): Promise<PodcastEpisode> {
    // The recordings module checks the caller owns it (404/403) and renames it.
    const r = await this.recordings.update(userId, {
      recordingId: req.recordingId,
      ...(req.title !== undefined ? { title: req.title } : {}),
    });
    if (req.notes !== undefined || req.inFeed !== undefined)
      await this.repo.save(r.id, { notes: req.notes, inFeed: req.inFeed });
    return episode(r, (await this.repo.byRecordings([r.id])).get(r.id));
  }
}

function episode(r: Recording, edit?: { notes: string; inFeed: boolean }): PodcastEpisode {
  return {
    recordingId: r.id,
    title: r.title,
    notes: edit?.notes ?? '',
    inFeed: edit?.inFeed ?? true,
    publiclyListed: isPubliclyListed(r),
    startedAt: r.startedAt,
    durationSeconds: r.durationSeconds,
  };
}
