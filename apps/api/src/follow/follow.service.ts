import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  FOLLOW_LIMITS,
  type FollowerCounts,
  type FollowSettings,
  type FollowState,
  type GuestFollowRequest,
  type GuestFollowResponse,
  type UpdateFollowRequest,
} from '@radiobroadcaster/contracts';
import { AuthMailer, redactAddress } from '../auth/auth.mailer.js';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import { FollowLinks } from './follow-links.js';
import { confirmMail } from './follow-mail.js';
import { type FollowRow, FollowRepository } from './follow.repository.js';

/** A new follow's switches: told when the station goes live, by e-mail and push. */
export const DEFAULT_SETTINGS: FollowSettings = {
  email: true,
  push: true,
  onLive: true,
  beforeShow: false,
  atShowStart: false,
};

/** What a one-click link did, for the page it answers with. */
export type LinkOutcome =
  { ok: true; station: StationEntity | null; already: boolean } | { ok: false; reason: string };

/** Following stations: accounts directly, guests by e-mail with double opt-in; counts for owners. */
@Injectable()
export class FollowService {
  private readonly logger = new Logger('Follow');
  readonly links: FollowLinks;

  constructor(
    @Inject(FollowRepository) private readonly repo: FollowRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(AuthMailer) private readonly mailer: AuthMailer,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.links = new FollowLinks(config.authSecret, config.publicUrl);
  }

  async state(userId: string, stationId: string): Promise<FollowState> {
    await this.stations.entity(stationId);
    const f = await this.repo.byUser(stationId, userId);
    return { stationId, following: f !== null, settings: f?.settings ?? DEFAULT_SETTINGS };
  }

  async follow(userId: string, stationId: string): Promise<FollowState> {
    await this.stations.entity(stationId);
    if (await this.repo.followAsUser(stationId, userId)) this.followersChanged(stationId);
    return this.state(userId, stationId);
  }

  async unfollow(userId: string, stationId: string): Promise<void> {
    await this.stations.entity(stationId);
    if (await this.repo.unfollowAsUser(stationId, userId)) this.followersChanged(stationId);
  }

  async update(userId: string, req: UpdateFollowRequest): Promise<FollowState> {
    const { stationId, ...changes } = req;
    await this.stations.entity(stationId);
    const f = await this.repo.byUser(stationId, userId);
    if (!f) throw AppError.notFound('You do not follow this station');
    await this.repo.updateSettings(f.id, changes);
    return this.state(userId, stationId);
  }

  async counts(userId: string, stationId: string): Promise<FollowerCounts> {
    await this.stations.owned(stationId, userId);
    return this.repo.counts(stationId);
  }

  /**
   * A guest asks to follow by e-mail: a confirmation mail (at most one per address and station
   * every few minutes); the answer never tells whether the address follows already.
   */
  async guestFollow(req: GuestFollowRequest): Promise<GuestFollowResponse> {
    const station = await this.stations.entity(req.stationId);
    const { follow, sendConfirmation } = await this.repo.guestFollow(
      station.id,
      req.email,
      FOLLOW_LIMITS.confirmResendMinutes * 60_000,
    );
    if (sendConfirmation) {
      const url = this.links.confirmUrl(follow.id, FOLLOW_LIMITS.confirmDays * 86_400);
      this.mailer
        .send(confirmMail(req.email, station.name, station.broadcaster.username, url))
        .catch((err: Error) =>
          this.logger.warn(`confirmation to ${redactAddress(req.email)}: ${err.message}`),
        );
    }
    return { status: 'confirmation-sent' };
  }

  /** What a confirmation link points at (GET: the page asking to confirm). */
  async confirmTarget(token: string): Promise<LinkOutcome> {
    const follow = await this.followOf(this.links.confirm.verify(token));
    if (!follow.ok) return follow;
    return { ok: true, station: follow.station, already: follow.row!.confirmedAt !== null };
  }

  async confirm(token: string): Promise<LinkOutcome> {
    const follow = await this.followOf(this.links.confirm.verify(token));
    if (!follow.ok) return follow;
    const done = await this.repo.confirm(follow.row!.id);
    if (done) this.followersChanged(follow.row!.stationId);
    return { ok: true, station: follow.station, already: !done };
  }

  /**
   * One-click unsubscribe (RFC 8058), no sign-in: a guest's follow goes; an account's follow stays
   * with e-mail off (push and the follow are theirs to change in the app).
   */
  async unsubscribe(token: string): Promise<LinkOutcome> {
    const follow = await this.followOf(this.links.unsubscribe.verify(token));
    if (!follow.ok) {
      // Gone already (unsubscribed before, or the station was deleted): what was asked is true.
      if (follow.reason === 'gone') return { ok: true, station: null, already: true };
      return follow;
    }
    const row = follow.row!;
    if (row.userId === null) {
      await this.repo.delete(row.id);
      this.followersChanged(row.stationId);
    } else {
      await this.repo.updateSettings(row.id, { email: false });
    }
    return { ok: true, station: follow.station, already: false };
  }

  async unsubscribeTarget(token: string): Promise<LinkOutcome> {
    const follow = await this.followOf(this.links.unsubscribe.verify(token));
    if (!follow.ok) {
      if (follow.reason === 'gone') return { ok: true, station: null, already: true };
      return follow;
    }
    const already = follow.row!.userId !== null && !follow.row!.settings.email;
    return { ok: true, station: follow.station, already };
  }

  private async followOf(
    verified: ReturnType<FollowLinks['confirm']['verify']>,
  ): Promise<{ ok: true; row: FollowRow; station: StationEntity } | { ok: false; reason: string }> {
    if (!verified.ok)
      return {
        ok: false,
        reason: verified.reason === 'expired' ? 'This link has expired' : 'This link is not valid',
      };
    const row = await this.repo.byId(verified.claims.f);
    if (!row) return { ok: false, reason: 'gone' };
    const station = await this.stations.entity(row.stationId);
    return { ok: true, row, station };
  }

  /** `station.followed` to the owner's webhooks: how many follow now, nobody's identity. */
  private followersChanged(stationId: string): void {
    void this.repo
      .counts(stationId)
      .then((c) => this.webhooks.emit(stationId, 'station.followed', { followers: c.followers }))
      .catch((err: Error) => this.logger.warn(`station.followed for ${stationId}: ${err.message}`));
  }
}
