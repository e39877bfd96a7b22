import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type AddListenerRequest,
  type AdmissionVia,
  type CreateInviteRequest,
  ErrorTag,
  type Invite,
  type ListedListener,
  type StationAccess,
  type StationFeeds,
  type StationPasswordRequest,
} from '@radiobroadcaster/contracts';
import { AuthMailer } from '../auth/auth.mailer.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { AppError } from '../common/app-error.js';
import { type ListenGrantClaims, type ListenVia, TokenSigner } from '../common/signed-token.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { ListenGrants, type SignedListenUrls } from '../radio/listen-grants.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { AccessRepository, type InviteRow } from './access.repository.js';
import { AccessSessions } from './access-sessions.js';

/** An invite token names its station and invite; whether it still admits is in the database. */
interface InviteClaims {
  stationId: string;
  iid: string;
}

/** How long an invite token's signature lasts when the invite has no expiry (it can be revoked). */
const OPEN_INVITE_TTL_SECONDS = 10 * 365 * 86_400;

/**
 * A private station's feed key (`?key=` on its podcast.xml and schedule.ics): one subscriber's
 * secret address, naming how they got in. Revoking that (`gid`) makes it refuse.
 */
interface FeedKeyClaims {
  stationId: string;
  via: ListenVia;
  gid: string;
  lid: string;
}

/** Feed keys last as long as the access they name (a podcast app keeps the address for years). */
const FEED_KEY_TTL_SECONDS = 10 * 365 * 86_400;
/**
 * How long the audio links a private podcast feed lists stay valid: every refresh of the feed lists
 * fresh ones; a revoked access ends them at once.
 */
export const FEED_AUDIO_TTL_SECONDS = 7 * 86_400;

/** A feed key that still admits: the listening grant the feed's audio links carry. */
export interface FeedAccess {
  /** A listening grant (`?grant=`) for the recordings and chapters the feed lists. */
  grant: string;
}

/** A listener admitted to a private station. */
export interface Admitted {
  via: ListenVia;
  /** What revokes it: `invite:{id}`, `password:{version}`, `account:{id}`, `owner`. */
  gid: string;
  lid: string;
  /** The invite's label or the account's e-mail, for the owner's lists. */
  label: string;
}

/** What a join may present to a private station. */
export interface AdmissionRequest {
  invite?: string;
  password?: string;
  grant?: string;
}

/** A grant id's parts. */
export function parseGid(gid: string | undefined): { kind: string; id: string } | null {
  if (!gid) return null;
  const i = gid.indexOf(':');
  return i < 0 ? { kind: gid, id: '' } : { kind: gid.slice(0, i), id: gid.slice(i + 1) };
}

/**
 * Who may listen to a private station: invite links, the station password and the owner's
 * listener list admit a listener, and admission yields a listening grant (a signed `/listen`
 * token from {@link ListenGrants}, naming how they got in and a random listener id). Every way
 * in (join, WHEP, `/listen`, playlists, the socket room) asks {@link grantValid}; revoking sends
 * `station.accessRevoked` on the bus and {@link AccessSessions} ends those listeners on every node.
 */
@Injectable()
export class AccessService {
  private readonly inviteSigner: TokenSigner<InviteClaims>;

  private readonly feedSigner: TokenSigner<FeedKeyClaims>;

  constructor(
    @Inject(AccessRepository) private readonly repo: AccessRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AuthMailer) private readonly mailer: AuthMailer,
    @Inject(AccessSessions) private readonly sessions: AccessSessions,
  ) {
    this.inviteSigner = new TokenSigner(config.authSecret, 'station-invite');
    this.feedSigner = new TokenSigner(config.authSecret, 'station-feed');
  }

  // ---- the owner's side ----

  async createInvite(userId: string, req: CreateInviteRequest): Promise<Invite> {
    const station = await this.stations.owned(req.stationId, userId);
    const expiresAt = req.expiresAt ? new Date(req.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw AppError.validation('The expiry must be in the future', [
        { path: 'expiresAt', message: 'Choose a time in the future.' },
      ]);
    const row = await this.repo.createInvite(
      station.id,
      req.label ?? '',
      expiresAt,
      req.maxUses ?? null,
    );
    return this.inviteView(station, row);
  }

  async listInvites(userId: string, stationId: string): Promise<Invite[]> {
    const station = await this.stations.owned(stationId, userId);
    return (await this.repo.invites(stationId)).map((r) => this.inviteView(station, r));
  }

  async revokeInvite(userId: string, id: string): Promise<void> {
    const row = await this.stations.ownedItem(await this.repo.invite(id), 'Invite', userId);
    await this.repo.revokeInvite(row.id);
    await this.bus.publish('station.accessRevoked', {
      stationId: row.stationId,
      gids: [`invite:${row.id}`],
    });
  }

  async revokeAllInvites(userId: string, stationId: string): Promise<{ revoked: number }> {
    await this.stations.owned(stationId, userId);
    const ids = await this.repo.revokeAllInvites(stationId);
    await this.bus.publish('station.accessRevoked', {
      stationId,
      gids: ids.map((id) => `invite:${id}`),
      allInvites: true,
    });
    return { revoked: ids.length };
  }

  /** Sets, changes or (null) removes the password: listeners it admitted before are ended. */
  async setPassword(
    userId: string,
    req: StationPasswordRequest,
  ): Promise<{ hasPassword: boolean }> {
    await this.stations.owned(req.stationId, userId);
    const hash =
      req.password === null ? null : await hashPassword(req.password, this.config.passwordScrypt);
    const version = await this.repo.setPassword(req.stationId, hash);
    await this.bus.publish('station.accessRevoked', {
      stationId: req.stationId,
      gids: [`password:${version - 1}`],
    });
    return { hasPassword: hash !== null };
  }

  async addListener(userId: string, req: AddListenerRequest): Promise<ListedListener> {
    const station = await this.stations.owned(req.stationId, userId);
    const row = await this.repo.addListener(station.id, req.email);
    const url = `${this.config.publicUrl}/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}`;
    await this.mailer.send({
      to: row.email,
      subject: `You're invited to listen to ${station.name}`.replace(/[\r\n]/g, ' '),
      text: `${station.broadcaster.name || station.broadcaster.username} invited you to listen to the private station "${station.name}".\n\nSign in (or create an account) with this e-mail address, then open:\n\n${url}\n\nIf you did not expect this, ignore this mail.\n`,
    });
    return { id: row.id, email: row.email, createdAt: row.createdAt.toISOString() };
  }

  async removeListener(userId: string, id: string): Promise<void> {
    const row = await this.stations.ownedItem(await this.repo.listener(id), 'Listener', userId);
    await this.repo.removeListener(row.id);
    await this.bus.publish('station.accessRevoked', {
      stationId: row.stationId,
      gids: [`account:${row.id}`],
    });
  }

  /** The access panel's state: visibility, password set or not, the list, the log, who listens. */
  async overview(userId: string, stationId: string): Promise<StationAccess> {
    const station = await this.stations.owned(stationId, userId);
    const [password, listeners, admissions, listening, invites] = await Promise.all([
      this.repo.password(stationId),
      this.repo.listeners(stationId),
      this.repo.admissions(stationId),
      this.sessions.listening(stationId),
      this.repo.invites(stationId),
    ]);
    // how each got in, in the owner's words: the invite's label, the account's e-mail
    const labels = new Map<string, string>([
      ...invites.map((i) => [`invite:${i.id}`, i.label] as const),
      ...listeners.map((l) => [`account:${l.id}`, l.email] as const),
    ]);
    return {
      stationId,
      visibility: station.visibility,
      hasPassword: password.hash !== null,
      listeners: listeners.map((l) => ({
        id: l.id,
        email: l.email,
        createdAt: l.createdAt.toISOString(),
      })),
      admissions: admissions.map((a) => ({
        at: a.at.toISOString(),
        via: a.via,
        label: a.label,
        listener: a.listenerId.slice(0, 8),
      })),
      listening: listening.map(({ gid, ...l }) => ({
        ...l,
        label: l.label || (gid ? (labels.get(gid) ?? '') : ''),
      })),
    };
  }

  // ---- the listener's side ----

  /**
   * Admits a listener to `station`: null when it is not private (anyone may listen), else how
   * they got in, or a 403 naming what is missing or wrong. `userId`: the signed-in caller.
   */
  async admit(
    station: StationEntity,
    req: AdmissionRequest,
    userId: string | null,
  ): Promise<Admitted | null> {
    if (station.visibility !== 'private') return null;
    if (req.grant) {
      const claims = this.grants.verify(req.grant, station.id);
      if (await this.grantValid(station.id, claims))
        return { via: claims.via, gid: claims.gid ?? '', lid: claims.lid, label: '' };
      // a revoked grant: another way in may still admit
      if (!req.invite && !req.password && !userId)
        throw new AppError(
          ErrorTag.GrantRevoked,
          'Your access to this private station was revoked',
        );
    }
    const lid = randomUUID();
    if (userId && userId === station.broadcasterId)
      return { via: 'owner', gid: 'owner', lid, label: 'owner' };
    if (req.invite) return this.admitInvite(station, req.invite, lid);
    if (req.password !== undefined) {
      const { hash, version } = await this.repo.password(station.id);
      if (!hash || !(await verifyPassword(req.password, hash)))
        throw new AppError(ErrorTag.WrongPassword, 'Wrong password for this station');
      await this.repo.logAdmission(station.id, 'password', '', lid);
      return { via: 'password', gid: `password:${version}`, lid, label: 'password' };
    }
    if (userId) {
      const email = await this.repo.userEmail(userId);
      const listed = email ? await this.repo.listenerByEmail(station.id, email) : null;
      if (listed) {
        await this.repo.logAdmission(station.id, 'account', listed.email, lid);
        return { via: 'account', gid: `account:${listed.id}`, lid, label: listed.email };
      }
    }
    throw new AppError(
      ErrorTag.PrivateStation,
      'This is a private station: it needs an invite link or its password',
    );
  }

  private async admitInvite(station: StationEntity, token: string, lid: string): Promise<Admitted> {
    const bad = (why: string) => new AppError(ErrorTag.InviteInvalid, why);
    const result = this.inviteSigner.verify(token);
    if (!result.ok)
      throw bad(
        result.reason === 'expired'
          ? 'This invite link has expired'
          : 'This invite link is not valid: it was changed or cut short',
      );
    if (result.claims.stationId !== station.id)
      throw bad('This invite link is for another station');
    const invite = await this.repo.invite(result.claims.iid);
    if (!invite || invite.revokedAt) throw bad('This invite link was revoked by the station owner');
    if (invite.expiresAt && invite.expiresAt.getTime() <= Date.now())
      throw bad('This invite link has expired');
    if (!(await this.repo.useInvite(invite.id, lid, invite.maxUses)))
      throw bad('This invite link has been used by as many listeners as it allows');
    await this.repo.logAdmission(station.id, 'invite', invite.label, lid);
    return { via: 'invite', gid: `invite:${invite.id}`, lid, label: invite.label };
  }

  /**
   * 403 PRIVATE_STATION unless the caller may hear `station`: it is not private, the caller owns
   * it, or `grant` (a listening grant, `?grant=`) still admits. For what only listeners may see
   * (a private station's schedule and calendar, its replays).
   */
  async assertMayHear(
    station: StationEntity,
    userId: string | undefined,
    grant: unknown,
  ): Promise<void> {
    if (station.visibility !== 'private' || station.broadcasterId === userId) return;
    if (typeof grant === 'string' && grant) {
      try {
        if (await this.grantValid(station.id, this.grants.verify(grant, station.id))) return;
      } catch {
        // refused below
      }
    }
    throw new AppError(
      ErrorTag.PrivateStation,
      'This is a private station: only its listeners may see this',
    );
  }

  // ---- private feeds ----

  /**
   * The caller's podcast and calendar addresses. A private station's carry the caller's own
   * feed key: the owner's, or one naming the access a listener's grant came from.
   */
  async feeds(
    stationId: string,
    userId: string | undefined,
    grant: unknown,
  ): Promise<StationFeeds> {
    const station = await this.stations.entity(stationId);
    const base = `${this.config.publicUrl}/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}`;
    const plain = { podcastUrl: `${base}/podcast.xml`, calendarUrl: `${base}/schedule.ics` };
    if (station.visibility !== 'private') return { ...plain, personal: false };
    let claims: FeedKeyClaims;
    if (userId && userId === station.broadcasterId) {
      claims = { stationId: station.id, via: 'owner', gid: 'owner', lid: randomUUID() };
    } else {
      await this.assertMayHear(station, userId, grant);
      const g = this.grants.verify(grant as string, station.id);
      claims = { stationId: station.id, via: g.via, gid: g.gid ?? '', lid: g.lid };
    }
    const { token } = this.feedSigner.sign(claims, FEED_KEY_TTL_SECONDS);
    const key = `?key=${encodeURIComponent(token)}`;
    return {
      podcastUrl: `${plain.podcastUrl}${key}`,
      calendarUrl: `${plain.calendarUrl}${key}`,
      personal: true,
    };
  }

  /**
   * Whether `key` opens `station`'s feeds: a station that is not private needs none (null); a
   * private one answers 403 `PRIVATE_STATION` without a valid key, `GRANT_REVOKED` when the access
   * it names was revoked.
   */
  async feedAccess(station: StationEntity, key: unknown): Promise<FeedAccess | null> {
    if (station.visibility !== 'private') return null;
    const refuse = (why: string) => new AppError(ErrorTag.PrivateStation, why);
    if (typeof key !== 'string' || !key)
      throw refuse(
        'This is a private station: its feeds need your own feed address (on the station page once you are let in)',
      );
    const result = this.feedSigner.verify(key);
    if (!result.ok || result.claims.stationId !== station.id)
      throw refuse(
        'This feed address is not valid: it was changed, cut short or is for another station',
      );
    const claims = result.claims;
    if (!(await this.grantValid(station.id, claims)))
      throw new AppError(
        ErrorTag.GrantRevoked,
        'Your access to this private station was revoked: this feed address no longer works',
      );
    const { token } = this.grants.issue(
      station,
      { via: claims.via, origin: null, gid: claims.gid, lid: claims.lid },
      FEED_AUDIO_TTL_SECONDS,
      this.config.publicUrl,
    );
    return { grant: token };
  }

  /** Whether a grant's claims still admit to the station as it is now. */
  async grantValid(
    stationId: string,
    claims: Pick<ListenGrantClaims, 'via' | 'gid'>,
  ): Promise<boolean> {
    const station = await this.stations.entity(stationId).catch(() => null);
    if (!station) return false;
    if (station.visibility !== 'private') return true;
    const gid = parseGid(claims.gid);
    if (!gid) return false;
    switch (gid.kind) {
      case 'owner':
        return claims.via === 'owner';
      case 'invite': {
        const invite = await this.repo.invite(gid.id);
        return (
          !!invite &&
          invite.stationId === stationId &&
          !invite.revokedAt &&
          (!invite.expiresAt || invite.expiresAt.getTime() > Date.now())
        );
      }
      case 'password': {
        const { hash, version } = await this.repo.password(stationId);
        return hash !== null && String(version) === gid.id;
      }
      case 'account': {
        const row = await this.repo.listener(gid.id);
        return !!row && row.stationId === stationId;
      }
      default:
        return false;
    }
  }

  /** The signed listening links (and grant token) for an admitted listener. */
  issueGrant(
    station: StationEntity,
    admitted: Admitted,
    origin: string | null,
    base: string,
  ): SignedListenUrls {
    return this.grants.issue(
      station,
      { via: admitted.via, origin, gid: admitted.gid, lid: admitted.lid },
      this.config.listenGrantTtlSeconds,
      base,
    );
  }

  private inviteView(station: StationEntity, r: InviteRow): Invite {
    const ttl = r.expiresAt
      ? // whole seconds from now, so the signature never lapses before the invite does
        Math.max(1, Math.ceil((r.expiresAt.getTime() - Date.now()) / 1000) + 1)
      : OPEN_INVITE_TTL_SECONDS;
    // The same invite always signs to a fresh token; any of them admits while the invite does.
    const { token } = this.inviteSigner.sign({ stationId: station.id, iid: r.id }, ttl);
    return {
      id: r.id,
      stationId: r.stationId,
      label: r.label,
      url: `${this.config.publicUrl}/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}?invite=${encodeURIComponent(token)}`,
      token,
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt?.toISOString() ?? null,
      maxUses: r.maxUses,
      uses: r.uses,
      revokedAt: r.revokedAt?.toISOString() ?? null,
    };
  }
}

export type { AdmissionVia };
