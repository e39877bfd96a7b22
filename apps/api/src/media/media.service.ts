import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { ErrorTag, type JoinStationResponse } from '@radiobroadcaster/contracts';
import { CapacityError, type EngineEvent, type MediaEngine, SdpError } from '@radiobroadcaster/sfu';
import { AppError } from '../common/app-error.js';
import type { StationTokenClaims } from '../common/signed-token.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { EventBus } from '../events/event-bus.js';
import { StationTokensService } from '../stations/station-tokens.service.js';
import { StationsService } from '../stations/stations.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { MEDIA_ENGINE } from './media-engine.provider.js';
import { isClusterEngine, type ClusterEngine } from './remote-engine.js';

interface PublisherSession {
  sessionId: string;
  tokenId: string;
  userId: string;
}

interface ListenerSession {
  stationId: string;
  /** The listener token that opened it, if any: DELETE must show the same one. */
  token: string | null;
}

/**
 * Signalling and lifecycle around the media engine: who may publish or listen, the station's
 * live/offline transitions, and listener counts on the event bus.
 */
@Injectable()
export class MediaService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Media');
  private readonly publishers = new Map<string, PublisherSession>();
  private readonly listeners = new Map<string, ListenerSession>();
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  private readonly off: (() => void)[] = [];
  /** Cluster mode: sessions and the station's publisher live in Redis, any API node may be asked. */
  private readonly cluster: ClusterEngine | null;

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StationTokensService) private readonly tokens: StationTokensService,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {
    this.cluster = isClusterEngine(engine) ? engine : null;
  }

  onModuleInit(): void {
    this.off.push(this.engine.on((e) => void this.onEngineEvent(e)));
    this.off.push(
      this.bus.subscribe('station.ended', ({ stationId }, meta) => {
        this.clearGrace(stationId);
        this.publishers.delete(stationId);
        // In cluster mode the node that ended the station closes it on every SFU node.
        if (!this.cluster || meta.local) void this.engine.closeStation(stationId);
      }),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
    for (const t of this.graceTimers.values()) clearTimeout(t);
  }

  // ---- publishing (WHIP) ----

  /** Verifies a station token for `stationId`: 401 when missing or bad, 403 for another station. */
  verifyStationToken(stationId: string, bearer: string | null): StationTokenClaims {
    if (!bearer) throw AppError.unauthorized('A station token is required (Authorization: Bearer)');
    const result = this.tokens.station.verify(bearer);
    if (!result.ok) {
      throw AppError.unauthorized(
        result.reason === 'expired' ? 'Station token expired' : 'Invalid station token',
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
    const claims = this.verifyStationToken(stationId, bearer);
    const station = await this.stations.entity(stationId);
    if (station.broadcasterId !== claims.userId)
      throw AppError.forbidden('You do not own this station');
    if (this.cluster) {
      // The publisher may be connected through another API node: ask Redis.
      const current = await this.cluster.currentPublisher(stationId);
      if (
        current &&
        current.tokenId !== claims.tid &&
        (await this.cluster.publisherLive(stationId, current.sessionId))
      ) {
        throw AppError.conflict('This station already has a live publisher');
      }
    } else {
      const current = this.publishers.get(stationId);
      const inGrace = this.graceTimers.has(stationId);
      if (
        current &&
        !inGrace &&
        current.tokenId !== claims.tid &&
        this.engine.hasSession(stationId, current.sessionId)
      ) {
        throw AppError.conflict('This station already has a live publisher');
      }
    }
    const answer = await this.engineCall(() => this.engine.publish(stationId, sdp));
    // A new publisher ends the grace period: it is the station's publisher now.
    this.clearGrace(stationId);
    const record = { sessionId: answer.sessionId, tokenId: claims.tid, userId: claims.userId };
    this.publishers.set(stationId, record);
    await this.cluster?.setPublisher(stationId, record);
    return { sessionId: answer.sessionId, answer: answer.answerSdp };
  }

  async unpublish(stationId: string, sessionId: string, bearer: string | null): Promise<void> {
    this.verifyStationToken(stationId, bearer);
    if ((await this.sessionKind(stationId, sessionId)) !== 'publisher')
      throw AppError.notFound('No such publishing session');
    await this.engine.unpublish(stationId, sessionId);
  }

  // ---- listening (join + WHEP) ----

  async join(
    stationId: string,
    origin: string | null,
    baseUrl: string,
  ): Promise<JoinStationResponse> {
    const station = await this.stations.entity(stationId);
    if (!station.isActive || station.status !== 'live') {
      throw new AppError(ErrorTag.StationNotActive, 'This station is not currently broadcasting');
    }
    await this.checkOrigin(station.broadcasterId, origin);
    const { token, expiresAt } = this.tokens.issueListenerToken(stationId, origin);
    return {
      stationId,
      whepUrl: `${baseUrl}/whep/${stationId}`,
      token,
      expiresAt,
      iceServers: this.config.rtc.iceServers,
    };
  }

  async listen(
    stationId: string,
    bearer: string | null,
    origin: string | null,
    sdp: string,
  ): Promise<{ sessionId: string; answer: string }> {
    const station = await this.stations.entity(stationId);
    if (bearer) {
      const result = this.tokens.listener.verify(bearer);
      if (!result.ok)
        throw AppError.unauthorized(
          result.reason === 'expired' ? 'Listener token expired' : 'Invalid listener token',
        );
      if (result.claims.stationId !== stationId)
        throw AppError.forbidden('This token is for another station');
      if (result.claims.origin && result.claims.origin !== origin) {
        throw new AppError(ErrorTag.DomainNotAllowed, 'This token was issued to another site');
      }
    } else {
      await this.checkOrigin(station.broadcasterId, origin);
    }
    if (!station.isActive || station.status !== 'live') {
      throw new AppError(ErrorTag.StationNotActive, 'This station is not currently broadcasting');
    }
    const stopTimer = this.metrics.joinLatency.startTimer();
    let answer: Awaited<ReturnType<MediaEngine['addListener']>>;
    try {
      answer = await this.engineCall(() => this.engine.addListener(stationId, sdp));
    } catch (err) {
      this.metrics.joins.inc({
        result:
          err instanceof AppError && err.tag === ErrorTag.ServiceUnavailable ? 'capacity' : 'error',
      });
      throw err;
    }
    stopTimer();
    this.metrics.joins.inc({ result: 'ok' });
    this.listeners.set(answer.sessionId, { stationId, token: bearer });
    await this.cluster?.setListenerToken(answer.sessionId, bearer);
    return { sessionId: answer.sessionId, answer: answer.answerSdp };
  }

  async leave(stationId: string, sessionId: string, bearer: string | null): Promise<void> {
    if (this.cluster) {
      // The session may have been opened through another API node.
      const rec = await this.cluster.lookupSession(sessionId);
      if (!rec || rec.stationId !== stationId || rec.kind !== 'listener')
        throw AppError.notFound('No such listening session');
      if (rec.token && rec.token !== bearer)
        throw AppError.forbidden('This session belongs to someone else');
      this.listeners.delete(sessionId);
      await this.engine.removeListener(stationId, sessionId);
      return;
    }
    const session = this.listeners.get(sessionId);
    if (
      !session ||
      session.stationId !== stationId ||
      this.engine.hasSession(stationId, sessionId) !== 'listener'
    ) {
      throw AppError.notFound('No such listening session');
    }
    if (session.token && session.token !== bearer)
      throw AppError.forbidden('This session belongs to someone else');
    this.listeners.delete(sessionId);
    await this.engine.removeListener(stationId, sessionId);
  }

  private async sessionKind(
    stationId: string,
    sessionId: string,
  ): Promise<'publisher' | 'listener' | null> {
    const local = this.engine.hasSession(stationId, sessionId);
    if (local || !this.cluster) return local;
    const rec = await this.cluster.lookupSession(sessionId);
    return rec && rec.stationId === stationId ? rec.kind : null;
  }

  private async checkOrigin(ownerId: string, origin: string | null): Promise<void> {
    if (!(await this.domains.originAllowed(ownerId, origin, this.config.trustedOrigins))) {
      throw new AppError(ErrorTag.DomainNotAllowed, "This station can't be played on this site");
    }
  }

  private async engineCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SdpError) throw AppError.validation(`Invalid SDP offer: ${err.message}`);
      if (err instanceof CapacityError) {
        throw new AppError(
          ErrorTag.ServiceUnavailable,
          'This server is at capacity, try again shortly',
          undefined,
          {
            'Retry-After': '5',
          },
        );
      }
      throw err;
    }
  }

  // ---- lifecycle ----

  private async onEngineEvent(e: EngineEvent): Promise<void> {
    try {
      switch (e.type) {
        case 'publisher-media':
          this.clearGrace(e.stationId);
          await this.stations.transition(e.stationId, 'live', true, true);
          break;
        case 'publisher-gone': {
          // In cluster mode the station's publisher record is in Redis (this node may be running
          // the lifecycle for an API node that went away).
          const current = this.cluster
            ? await this.cluster.currentPublisher(e.stationId)
            : this.publishers.get(e.stationId);
          if (current?.sessionId === e.sessionId) this.startGrace(e.stationId, e.sessionId);
          break;
        }
        case 'listeners':
          await this.bus.publish('station.listeners', {
            stationId: e.stationId,
            viewerCount: e.count,
          });
          break;
        case 'listener-gone':
          this.listeners.delete(e.sessionId);
          break;
      }
    } catch (err) {
      this.logger.warn(`engine event ${e.type} for ${e.stationId}: ${(err as Error).message}`);
    }
  }

  /** The publisher left: listeners stay connected for the grace period, then the station goes offline. */
  private startGrace(stationId: string, sessionId: string): void {
    this.clearGrace(stationId);
    this.graceTimers.set(
      stationId,
      setTimeout(() => {
        this.graceTimers.delete(stationId);
        if (!this.cluster && this.publishers.get(stationId)?.sessionId !== sessionId) return;
        this.publishers.delete(stationId);
        void (async () => {
          try {
            if (this.cluster) {
              // A reconnect through another API node took over the station meanwhile.
              const current = await this.cluster.currentPublisher(stationId);
              if (current && current.sessionId !== sessionId) return;
            }
            const station = await this.stations.entity(stationId);
            if (station.status === 'live')
              await this.stations.transition(stationId, 'offline', false, true);
            await this.engine.closeStation(stationId);
          } catch (err) {
            this.logger.warn(`offline transition for ${stationId}: ${(err as Error).message}`);
          }
        })();
      }, this.config.rtc.publisherGraceMs),
    );
  }

  private clearGrace(stationId: string): void {
    const t = this.graceTimers.get(stationId);
    if (t) clearTimeout(t);
    this.graceTimers.delete(stationId);
  }
}
