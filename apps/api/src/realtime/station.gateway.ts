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
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { StationReadModel } from '../stations/station-read-model.js';
import { STATION_CHANGES, toUpdatePush } from '../stations/station.view.js';
import { PushScheduler } from './push-scheduler.js';
import { mayJoinStationRoom } from './room-access.js';
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
    const caller = {
      userId: (client.data as { userId?: string } | undefined)?.userId ?? null,
      origin: client.handshake.headers.origin ?? null,
    };
    if (!(await mayJoinStationRoom(station, caller)))
      return { ok: false, error: ErrorTag.Forbidden, message: 'You may not join this station' };
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

/** The web app sends the id itself; other clients `{ stationId }`. */
function parseStationId(body: unknown): string | null {
  const value =
    typeof body === 'object' && body !== null ? (body as { stationId?: unknown }).stationId : body;
  const parsed = StationId.safeParse(value);
  return parsed.success ? parsed.data : null;
}
