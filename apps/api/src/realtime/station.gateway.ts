import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayConnection,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import { ErrorTag, SOCKET_EVENTS, StationId, stationRoom } from '@radiobroadcaster/contracts';
import type { Server, Socket } from 'socket.io';
import { AccessService } from '../access/access.service.js';
import { PRIVATE_NOTICE_MS } from '../access/access-sessions.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { ListenGrants } from '../radio/listen-grants.js';
import { StationsRepository } from '../stations/stations.repository.js';
import { EventBus } from '../events/event-bus.js';
import { StationReadModel } from '../stations/station-read-model.js';
import { STATION_CHANGES, toUpdatePush } from '../stations/station.view.js';
import { PushScheduler } from './push-scheduler.js';
import { TokenBucket } from './token-bucket.js';

/** A page shows one station; a few more covers tabs sharing a connection. */
const MAX_ROOMS_PER_SOCKET = 20;
/** Our messages are a station id; refuse anything bigger before parsing it. */
const MAX_MESSAGE_BYTES = 4096;

type Ack =
  | { ok: true; station?: ReturnType<typeof toUpdatePush> }
  | { ok: false; error: string; message: string };

interface SocketState {
  bucket: TokenBucket;
  /** Events refused in a row; a client that keeps going is disconnected. */
  refused: number;
}

/**
 * Clients join room `station:{id}` and get `station:update` whenever status, isActive,
 * viewerCount, nowPlaying or lastActiveAt change. The node where a change happened pushes it;
 * the Redis adapter carries it to clients of every node. Joins are answered from the in-memory
 * station view, and each connection's events are rate-limited.
 */
@WebSocketGateway({ maxHttpBufferSize: MAX_MESSAGE_BYTES })
export class StationGateway implements OnGatewayConnection, OnModuleDestroy {
  @WebSocketServer() server!: Server;
  private readonly logger = new Logger('StationGateway');
  private readonly scheduler: PushScheduler;
  private readonly unsubscribers: (() => void)[];
  private readonly sockets = new WeakMap<Socket, SocketState>();

  constructor(
    @Inject(EventBus) bus: EventBus,
    @Inject(StationReadModel) private readonly stations: StationReadModel,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
    @Inject(StationsRepository) private readonly stationRows: StationsRepository,
  ) {
    this.scheduler = new PushScheduler(
      { minIntervalMs: 250, countIntervalMs: 1000 },
      (stationId) => void this.push(stationId),
    );
    this.unsubscribers = [
      // Pushed at once, at most 4 a second per station.
      ...STATION_CHANGES.map((name) =>
        bus.subscribe(name, (payload, meta) => {
          if (meta.local) this.scheduler.changed(payload.stationId, 'change');
        }),
      ),
      bus.subscribe('station.listeners', (payload, meta) => {
        if (meta.local) this.scheduler.changed(payload.stationId, 'count');
      }),
      // A private station's room holds admitted listeners only: revoked ones leave it on every node.
      bus.subscribe('station.accessRevoked', ({ stationId, gids, allInvites }) => {
        const revoked = new Set(gids);
        this.evict(
          stationId,
          (gid) => revoked.has(gid) || (!!allInvites && gid.startsWith('invite:')),
        );
      }),
      bus.subscribe('station.visibilityChanged', ({ stationId, visibility }, meta) => {
        if (visibility !== 'private') return;
        if (meta.local)
          this.server.to(stationRoom(stationId)).emit(SOCKET_EVENTS.access, {
            id: stationId,
            visibility,
            endsInSeconds: PRIVATE_NOTICE_MS / 1000,
          });
        const t = setTimeout(() => this.evict(stationId, (gid) => gid === ''), PRIVATE_NOTICE_MS);
        this.unsubscribers.push(() => clearTimeout(t));
      }),
      // Nothing to read back: tell the room at once.
      bus.subscribe('station.deleted', ({ stationId }, meta) => {
        if (meta.local)
          this.server.to(stationRoom(stationId)).emit(SOCKET_EVENTS.deleted, { id: stationId });
      }),
    ];
  }

  handleConnection(client: Socket): void {
    const { eventsPerSecond, burst } = this.config.socketRateLimit;
    this.sockets.set(client, { bucket: new TokenBucket(eventsPerSecond, burst), refused: 0 });
  }

  @SubscribeMessage(SOCKET_EVENTS.join)
  async join(@ConnectedSocket() client: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const refused = this.admit(client);
    if (refused) return refused;
    const stationId = parseStationId(body);
    if (!stationId)
      return { ok: false, error: ErrorTag.ValidationError, message: 'stationId must be a UUID' };
    const room = stationRoom(stationId);
    if (!client.rooms.has(room) && client.rooms.size > MAX_ROOMS_PER_SOCKET) {
      return {
        ok: false,
        error: ErrorTag.RateLimited,
        message: `At most ${MAX_ROOMS_PER_SOCKET} stations per connection`,
      };
    }
    const station = await this.stations.station(stationId);
    if (!station)
      return { ok: false, error: ErrorTag.StationNotFound, message: 'Station not found' };
    // A private station's room (its chat and presence) is for admitted listeners: `{ stationId, grant }`.
    let gid = '';
    if ((await this.stationRows.visibilityOf(stationId)) === 'private') {
      const grant = parseGrant(body);
      let ok = false;
      if (grant) {
        try {
          const claims = this.grants.verify(grant, stationId);
          ok = await this.access.grantValid(stationId, claims);
          gid = claims.gid ?? '';
        } catch {
          ok = false;
        }
      }
      if (!ok || !gid)
        return {
          ok: false,
          error: ErrorTag.PrivateStation,
          message: 'This is a private station: join it with a listening grant',
        };
    }
    ((client.data as { gids?: Record<string, string> }).gids ??= {})[stationId] = gid;
    await client.join(room);
    return { ok: true, station: toUpdatePush(station) };
  }

  @SubscribeMessage(SOCKET_EVENTS.leave)
  async leave(@ConnectedSocket() client: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const refused = this.admit(client);
    if (refused) return refused;
    const stationId = parseStationId(body);
    if (!stationId)
      return { ok: false, error: ErrorTag.ValidationError, message: 'stationId must be a UUID' };
    await client.leave(stationRoom(stationId));
    return { ok: true };
  }

  /** Removes this node's sockets from a station's room whose grant id `revoked` matches. */
  private evict(stationId: string, revoked: (gid: string) => boolean): void {
    const room = stationRoom(stationId);
    const ids = this.server.sockets.adapter.rooms.get(room);
    if (!ids) return;
    for (const id of [...ids]) {
      const socket = this.server.sockets.sockets.get(id);
      if (!socket) continue;
      const gid = (socket.data as { gids?: Record<string, string> }).gids?.[stationId] ?? '';
      if (revoked(gid)) {
        void socket.leave(room);
        socket.emit(SOCKET_EVENTS.access, {
          id: stationId,
          visibility: 'private',
          endsInSeconds: 0,
        });
      }
    }
  }

  /** Null when the event may proceed, else the refusal (and a disconnect for a flood). */
  private admit(client: Socket): Ack | null {
    const state = this.sockets.get(client);
    if (!state || state.bucket.take()) {
      if (state) state.refused = 0;
      return null;
    }
    state.refused++;
    if (state.refused === this.config.socketRateLimit.burst * 5) {
      this.logger.warn(`disconnecting a socket that kept flooding (${client.handshake.address})`);
      // After the refusals already answered have gone out.
      setImmediate(() => client.disconnect(true));
    }
    return { ok: false, error: ErrorTag.RateLimited, message: 'Too many messages, slow down' };
  }

  private async push(stationId: string): Promise<void> {
    try {
      const station = await this.stations.station(stationId);
      if (station)
        this.server.to(stationRoom(stationId)).emit(SOCKET_EVENTS.update, toUpdatePush(station));
    } catch (err) {
      this.logger.warn(`no push for ${stationId}: ${(err as Error).message}`);
    }
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribers) u();
    this.scheduler.close();
  }
}

/** A listening grant sent with a join (`{ stationId, grant }`). */
function parseGrant(body: unknown): string | null {
  const g = typeof body === 'object' && body !== null ? (body as { grant?: unknown }).grant : null;
  return typeof g === 'string' && g.length > 0 && g.length <= 2048 ? g : null;
}

/** The web app sends the id itself; other clients `{ stationId }`. */
function parseStationId(body: unknown): string | null {
  const value =
    typeof body === 'object' && body !== null ? (body as { stationId?: unknown }).stationId : body;
  const parsed = StationId.safeParse(value);
  return parsed.success ? parsed.data : null;
}
