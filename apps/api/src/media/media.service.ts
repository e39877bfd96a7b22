import { createHash, randomUUID } from 'node:crypto';
import { IceServersService } from '../turn/ice-servers.service.js';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ErrorTag, type JoinStationResponse } from '@radiobroadcaster/contracts';
import {
  CapacityError,
  SdpError,
  type MediaEngine,
  type PacketPublisher,
  type SessionAnswer,
} from '@radiobroadcaster/sfu';
import { AppError } from '../common/app-error.js';
import type { ListenerTokenClaims, StationTokenClaims } from '../common/signed-token.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { EventBus } from '../events/event-bus.js';
import { ListenGrants } from '../radio/listen-grants.js';
import { STREAM_KEY_PREFIX, StreamKeysService } from '../radio/stream-keys.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { StationEntity } from '../stations/station.entity.js';
import { ListeningSessions } from '../stats/listening-sessions.service.js';
import { StationTokensService } from '../stations/station-tokens.service.js';
import { StationsService } from '../stations/stations.service.js';
import { AccessService, type AdmissionRequest } from '../access/access.service.js';
import { AccessSessions } from '../access/access-sessions.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { SessionStore, type ListenerSlot, type PublisherRecord } from './session-store.js';
import { listenerSlotId } from './viewer-count.js';

/** Who is asking, as far as signalling cares. */
export interface Caller {
  /** The request's `Origin` header as sent (`'null'` from sandboxed or opaque pages), or null without one. */
  origin: string | null;
  /** Client IP (honours TRUST_PROXY). */
  ip: string;
  /** Only a coarse client kind is derived from it for the stats; it is never stored. */
  userAgent?: string | null;
}

/**
 * Signalling: who may publish or listen, and the WHIP/WHEP sessions they open. The station's
 * lifecycle (live, grace, offline) is `StationLifecycle`'s.
 */
@Injectable()
export class MediaService implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | null = null;

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StationTokensService) private readonly tokens: StationTokensService,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(ListeningSessions) private readonly listening: ListeningSessions,
    @Inject(StreamKeysService) private readonly streamKeys: StreamKeysService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(IceServersService) private readonly ice: IceServersService,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(AccessSessions) private readonly held: AccessSessions,
  ) {}

  /** This node's WebRTC listeners as {@link AccessSessions} holds them, by session id. */
  private readonly heldListeners = new Map<string, () => void>();

  onModuleInit(): void {
    // However a listener goes (ICE failure, station closed), its listening session ends.
    const offEngine = this.engine.on((e) => {
      if (e.type === 'listener-gone') {
        void this.listening.ended(e.sessionId);
        this.heldListeners.get(e.sessionId)?.();
        this.heldListeners.delete(e.sessionId);
      }
    });
    const offBus = this.bus.subscribe('station.streamKeyRotated', ({ stationId }) => {
      void this.cutOffOldKey(stationId);
    });
    this.off = () => {
      offEngine();
      offBus();
    };
  }

  onModuleDestroy(): void {
    this.off?.();
  }

  /** The publisher session opened with a stream key that was just rotated away ends now. */
  private async cutOffOldKey(stationId: string): Promise<void> {
    const current = await this.sessions.publisher(stationId);
    if (!current?.tokenId.startsWith(STREAM_KEY_TOKEN)) return;
    const keyHash = current.tokenId.slice(STREAM_KEY_TOKEN.length);
    if (await this.streamKeys.isCurrent(stationId, keyHash)) return;
    await this.engine.unpublish(stationId, current.sessionId);
  }

  /**
   * Who publishes with `bearer`: a short-lived station token, or the station's persistent stream
   * key (OBS and other software configured once), whose id is `key:{hash}`.
   */
  private async publishingClaims(
    stationId: string,
    bearer: string | null,
  ): Promise<{ tid: string; userId: string }> {
    if (bearer?.startsWith(STREAM_KEY_PREFIX)) {
      const hash = await this.streamKeys.verify(stationId, bearer);
      if (!hash) throw AppError.unauthorized('Invalid stream key');
      const station = await this.stations.entity(stationId);
      return { tid: `${STREAM_KEY_TOKEN}${hash}`, userId: station.broadcasterId };
    }
    return this.verifyStationToken(stationId, bearer);
  }

  // ---- publishing (WHIP) ----

  /** Verifies a station token for `stationId`: 401 when missing or bad, 403 for another station. */
  async verifyStationToken(stationId: string, bearer: string | null): Promise<StationTokenClaims> {
    if (!bearer) throw AppError.unauthorized('A station token is required (Authorization: Bearer)');
    const result = await this.tokens.verifyStationToken(bearer);
    if (!result.ok) {
      throw AppError.unauthorized(
        result.reason === 'expired'
          ? 'Station token expired'
          : result.reason === 'revoked'
            ? 'Station token revoked: its session was signed out'
            : 'Invalid station token',
      );
    }
    if (result.claims.stationId !== stationId)
      throw AppError.forbidden('This token is for another station');
    return result.claims;
  }

  async publish(
    stationId: string,
    bearer: string | null,
    sdp: string,
  ): Promise<{ sessionId: string; answer: string }> {
    const claims = await this.publishingClaims(stationId, bearer);
    const station = await this.stations.entity(stationId);
    if (station.broadcasterId !== claims.userId)
      throw AppError.forbidden('You do not own this station');
    // The same token reconnecting replaces its own session (once its media flows: see
    // MediaEngine.publish); another token waits for it to end.
    const current = await this.livePublisher(stationId);
    if (current && current.tokenId !== claims.tid) {
      throw AppError.conflict('This station already has a live publisher');
    }
    const answer = await engineCall(() => this.engine.publish(stationId, sdp));
    await this.recordPublisher(stationId, answer.sessionId, claims.tid, claims.userId, !current);
    return { sessionId: answer.sessionId, answer: answer.answerSdp };
  }

  /** The station's publisher record when the engine still has that session. */
  private async livePublisher(stationId: string): Promise<PublisherRecord | null> {
    const current = await this.sessions.publisher(stationId);
    return current && (await this.engine.hasSession(stationId, current.sessionId)) === 'publisher'
      ? current
      : null;
  }

  /**
   * Remembers a publisher just opened. It is the station's publisher at once when none is live
   * (`now`); otherwise it becomes it when its media flows (StationLifecycle, on 'publisher-media').
   */
  private async recordPublisher(
    stationId: string,
    sessionId: string,
    tokenId: string,
    userId: string,
    now: boolean,
  ): Promise<void> {
    await this.sessions.putSession(sessionId, {
      stationId,
      kind: 'publisher',
      tokenHash: null,
      slot: null,
      publisher: { tokenId, userId },
    });
    if (now) await this.sessions.setPublisher(stationId, { sessionId, tokenId, userId });
  }

  /**
   * A publisher that pushes Opus packets (the Icecast-protocol ingest), opened with the station's
   * stream key (`keyHash` from {@link StreamKeysService.verify}). A station that already has a live
   * publisher refuses it (403): the first one keeps going.
   */
  async publishPackets(stationId: string, keyHash: string): Promise<PacketPublisher> {
    const station = await this.stations.entity(stationId);
    await this.assertNoLivePublisher(stationId);
    const pub = await engineCall(() => this.engine.publishPackets(stationId));
    const tokenId = `${STREAM_KEY_TOKEN}${keyHash}`;
    const live = await this.livePublisher(stationId);
    await this.recordPublisher(stationId, pub.sessionId, tokenId, station.broadcasterId, !live);
    // rotated while it was being opened
    if (!(await this.streamKeys.isCurrent(stationId, keyHash))) {
      await pub.close();
      throw AppError.unauthorized('Invalid stream key');
    }
    return pub;
  }

  /** 403 when the station has a live publisher (WHIP, studio or another source). */
  async assertNoLivePublisher(stationId: string): Promise<void> {
    if (await this.livePublisher(stationId))
      throw AppError.forbidden('This station is already live from another source');
  }

  async unpublish(stationId: string, sessionId: string, bearer: string | null): Promise<void> {
    await this.publishingClaims(stationId, bearer);
    const rec = await this.sessions.session(sessionId);
    if (!rec || rec.stationId !== stationId || rec.kind !== 'publisher')
      throw AppError.notFound('No such publishing session');
    if (!(await this.engine.unpublish(stationId, sessionId))) {
      await this.sessions.takeSession(sessionId);
      throw AppError.notFound('No such publishing session');
    }
  }

  // ---- listening (join + WHEP) ----

  async join(
    stationId: string,
    caller: Caller,
    baseUrl: string,
    admission: AdmissionRequest = {},
    userId: string | null = null,
  ): Promise<JoinStationResponse> {
    const station = await this.stations.entity(stationId);
    await this.checkOrigin(station.broadcasterId, caller.origin);
    // A private station admits by invite, password or listener list (403 otherwise), live or not.
    const admitted = await this.access.admit(station, admission, userId);
    assertLive(station);
    const { token, expiresAt } = this.tokens.issueListenerToken(
      stationId,
      caller.origin,
      admitted ? { via: admitted.via, gid: admitted.gid, lid: admitted.lid } : undefined,
    );
    // The player's HTTP fallback: signed, so it plays even when the stream URL is private; for a
    // private station the listening grant itself (24 h, LISTEN_GRANT_TTL_SECONDS).
    const listen = admitted
      ? this.access.issueGrant(station, admitted, caller.origin, baseUrl)
      : this.grants.issue(
          station,
          { via: 'join', origin: caller.origin },
          this.config.listenerTokenTtlSeconds,
          baseUrl,
        );
    return {
      ...(admitted && {
        grant: { token: listen.token, expiresAt: listen.expiresAt, via: admitted.via },
      }),
      stationId,
      whepUrl: `${baseUrl}/whep/${stationId}`,
      token,
      expiresAt,
      // minted only here, once the caller was admitted (throttled callers never reach this)
      iceServers: this.ice.forCaller('listener'),
      listen: { ogg: listen.ogg, mp3: listen.mp3 },
    };
  }

  /**
   * Whether a page on `origin` may play this station, live or not: `<radio-player>` asks before it
   * offers Play, so a refused site never shows a control that cannot work. The join decides anyway.
   */
  async playableFrom(stationId: string, origin: string | null): Promise<boolean> {
    const station = await this.stations.entity(stationId);
    return this.domains.originAllowed(station.broadcasterId, origin, this.config.trustedOrigins);
  }

  async listen(
    stationId: string,
    bearer: string | null,
    caller: Caller,
    sdp: string,
  ): Promise<{ sessionId: string; answer: string }> {
    const station = await this.stations.entity(stationId);
    // A private station: a join token carrying an admission, or a listening grant (third-party
    // WHEP clients send the grant from a playlist or the join as the bearer).
    const grantBearer =
      station.visibility === 'private' && bearer && this.isListenGrant(stationId, bearer);
    const verified =
      bearer && !grantBearer ? this.verifyListenerToken(stationId, bearer, caller.origin) : null;
    const tokenId = verified?.tid ?? null;
    const admitted: { via: string; gid: string; lid: string } | null = grantBearer
      ? (() => {
          const c = this.grants.verify(bearer, stationId);
          return { via: c.via, gid: c.gid ?? '', lid: c.lid };
        })()
      : (verified?.grant ?? null);
    // The list may have changed since the token was issued: the page must still be allowed.
    await this.checkOrigin(station.broadcasterId, caller.origin);
    if (station.visibility === 'private') {
      if (!admitted)
        throw new AppError(
          ErrorTag.PrivateStation,
          'This is a private station: join it with an invite link or its password first',
        );
      if (
        !(await this.access.grantValid(stationId, {
          via: admitted.via as never,
          gid: admitted.gid,
        }))
      )
        throw new AppError(
          ErrorTag.GrantRevoked,
          'Your access to this private station was revoked',
        );
    }
    assertLive(station);
    if (tokenId && !(await this.sessions.claimToken(tokenId, this.tokenTtlMs))) {
      throw AppError.conflict('This listener token was already used; join again');
    }
    const slot: ListenerSlot = {
      id: listenerSlotId(caller.ip, randomUUID()),
      ip: caller.ip,
      stationId,
    };
    try {
      await this.admit(slot);
      const answer = await this.addListener(stationId, sdp);
      await this.sessions.putSession(answer.sessionId, {
        stationId,
        kind: 'listener',
        tokenHash: bearer ? hashToken(bearer) : null,
        slot,
      });
      await this.listening.started({
        id: answer.sessionId,
        stationId,
        transport: 'webrtc',
        origin: caller.origin,
        userAgent: caller.userAgent,
      });
      const sessionId = answer.sessionId;
      this.heldListeners.set(
        sessionId,
        this.held.add({
          stationId,
          gid: admitted?.gid || null,
          via: admitted?.via ?? 'public',
          lid: admitted?.lid ?? slot.id,
          label: '',
          transport: 'webrtc',
          since: new Date(),
          end: () => void this.endListener(stationId, sessionId),
        }),
      );
      return { sessionId, answer: answer.answerSdp };
    } catch (err) {
      // Nothing was opened: the token and the slot stay usable.
      await this.sessions.releaseListener(slot);
      if (tokenId) await this.sessions.releaseToken(tokenId);
      throw err;
    }
  }

  async leave(stationId: string, sessionId: string, bearer: string | null): Promise<void> {
    const rec = await this.sessions.session(sessionId);
    if (!rec || rec.stationId !== stationId || rec.kind !== 'listener')
      throw AppError.notFound('No such listening session');
    if (rec.tokenHash && (!bearer || hashToken(bearer) !== rec.tokenHash))
      throw AppError.forbidden('This session belongs to someone else');
    if (!(await this.sessions.takeSession(sessionId)))
      throw AppError.notFound('No such listening session');
    await this.engine.removeListener(stationId, sessionId);
    await this.listening.ended(sessionId);
  }

  /** Ends a WebRTC listener whose access was revoked (on the node that holds it). */
  async endListener(stationId: string, sessionId: string): Promise<void> {
    this.heldListeners.get(sessionId)?.();
    this.heldListeners.delete(sessionId);
    if (!(await this.sessions.takeSession(sessionId))) return;
    await this.engine.removeListener(stationId, sessionId);
    await this.listening.ended(sessionId);
  }

  /** Whether `bearer` is a listening grant (a signed `/listen` token) rather than a join token. */
  private isListenGrant(stationId: string, bearer: string): boolean {
    try {
      this.grants.verify(bearer, stationId);
      return true;
    } catch {
      return false;
    }
  }

  private async addListener(stationId: string, sdp: string): Promise<SessionAnswer> {
    const stopTimer = this.metrics.joinLatency.startTimer();
    try {
      const answer = await engineCall(() => this.engine.addListener(stationId, sdp));
      stopTimer();
      this.metrics.joins.inc({ result: 'ok' });
      return answer;
    } catch (err) {
      const capacity = err instanceof AppError && err.tag === ErrorTag.ServiceUnavailable;
      this.metrics.joins.inc({ result: capacity ? 'capacity' : 'error' });
      throw err;
    }
  }

  private get tokenTtlMs(): number {
    return this.config.listenerTokenTtlSeconds * 1000;
  }

  /** The token's claims, if it is a valid listener token for this station and this page. */
  private verifyListenerToken(
    stationId: string,
    bearer: string,
    origin: string | null,
  ): ListenerTokenClaims {
    const result = this.tokens.listener.verify(bearer);
    if (!result.ok)
      throw AppError.unauthorized(
        result.reason === 'expired' ? 'Listener token expired' : 'Invalid listener token',
      );
    if (result.claims.stationId !== stationId)
      throw AppError.forbidden('This token is for another station');
    // Bound to the Origin it was issued to, "no Origin" included: it can't be carried to another page.
    if ((result.claims.origin ?? null) !== origin) {
      throw new AppError(ErrorTag.DomainNotAllowed, 'This token was issued to another site');
    }
    return result.claims;
  }

  /**
   * A slot for an HTTP listener (`/listen/…`) in the same caps as WebRTC listeners (per client IP,
   * per station), so one address holds at most `MAX_LISTENERS_PER_IP` streams whatever the
   * transport. 429 / 503 as for WHEP; release it with {@link releaseListener} when the stream ends.
   */
  async admitListener(stationId: string, ip: string): Promise<ListenerSlot> {
    const slot: ListenerSlot = { id: listenerSlotId(ip, randomUUID()), ip, stationId };
    await this.admit(slot);
    return slot;
  }

  async releaseListener(slot: ListenerSlot): Promise<void> {
    await this.sessions.releaseListener(slot);
  }

  private async admit(slot: ListenerSlot): Promise<void> {
    const { perIp, perStation } = this.config.rtc.listenerCaps;
    switch (await this.sessions.admitListener(slot, { perIp, perStation })) {
      case 'ok':
        return;
      case 'ip-full':
        throw new AppError(
          ErrorTag.RateLimited,
          `Too many listening sessions from your address (at most ${perIp})`,
          undefined,
          { 'Retry-After': '30' },
        );
      case 'station-full':
        throw new AppError(
          ErrorTag.ServiceUnavailable,
          `This station has reached its listener limit (${perStation}), try again shortly`,
          undefined,
          { 'Retry-After': '30' },
        );
    }
  }

  private async checkOrigin(ownerId: string, origin: string | null): Promise<void> {
    if (!(await this.domains.originAllowed(ownerId, origin, this.config.trustedOrigins))) {
      throw new AppError(ErrorTag.DomainNotAllowed, "This station can't be played on this site");
    }
  }
}

/** Prefix of a publisher record's token id when it was opened with the stream key. */
const STREAM_KEY_TOKEN = 'key:';

function assertLive(station: StationEntity): void {
  if (!station.isActive || station.status !== 'live') {
    throw new AppError(ErrorTag.StationNotActive, 'This station is not currently broadcasting');
  }
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** The engine's refusals as the API's errors: bad SDP 400, no capacity 503. */
async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SdpError) throw AppError.validation(`Invalid SDP offer: ${err.message}`);
    if (err instanceof CapacityError) {
      throw new AppError(
        ErrorTag.ServiceUnavailable,
        'This server is at capacity, try again shortly',
        undefined,
        { 'Retry-After': '5' },
      );
    }
    throw err;
  }
}
