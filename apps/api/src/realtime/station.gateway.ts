import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import { type EventName, SOCKET_EVENTS, StationId, stationRoom } from '@radiobroadcaster/contracts';
import type { Server, Socket } from 'socket.io';
import { EventBus } from '../events/event-bus.js';
import { toUpdatePush } from '../stations/station.view.js';
import { StationsService } from '../stations/stations.service.js';

/** At most 4 pushes a second per station. */
const MIN_PUSH_INTERVAL_MS = 250;

const STATION_EVENTS: EventName[] = [
  'station.updated',
  'station.live',
  'station.offline',
  'station.ended',
  'station.nowPlaying',
  'station.listeners',
];

/**
 * Clients join room `station:{id}` and get `station:update` whenever status, isActive,
 * viewerCount, nowPlaying or lastActiveAt change. The node where a change happened pushes it;
 * the Redis adapter carries it to clients of every node.
 */
@WebSocketGateway()
export class StationGateway implements OnModuleDestroy {
  @WebSocketServer() server!: Server;
  private readonly logger = new Logger('StationGateway');
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly lastPush = new Map<string, number>();
  private readonly unsubscribers: (() => void)[];

  constructor(
    @Inject(EventBus) bus: EventBus,
    @Inject(StationsService) private readonly stations: StationsService,
  ) {
    this.unsubscribers = STATION_EVENTS.map((name) =>
      bus.subscribe(name, (payload, meta) => {
        if (meta.local) this.schedule((payload as { stationId: string }).stationId);
      }),
    );
  }

  @SubscribeMessage(SOCKET_EVENTS.join)
  async join(@ConnectedSocket() client: Socket, @MessageBody() body: unknown) {
    const parsed = StationId.safeParse(
      typeof body === 'object' && body ? (body as { stationId?: unknown }).stationId : body,
    );
    if (!parsed.success)
      return { ok: false, error: 'ValidationError', message: 'stationId must be a UUID' };
    await client.join(stationRoom(parsed.data));
    try {
      return { ok: true, station: toUpdatePush(await this.stations.get(parsed.data)) };
    } catch {
      return { ok: false, error: 'StationNotFoundError', message: 'Station not found' };
    }
  }

  @SubscribeMessage(SOCKET_EVENTS.leave)
  async leave(@ConnectedSocket() client: Socket, @MessageBody() body: unknown) {
    const parsed = StationId.safeParse(
      typeof body === 'object' && body ? (body as { stationId?: unknown }).stationId : body,
    );
    if (parsed.success) await client.leave(stationRoom(parsed.data));
    return { ok: parsed.success };
  }

  private schedule(stationId: string): void {
    if (this.pending.has(stationId)) return;
    const wait = Math.max(
      0,
      (this.lastPush.get(stationId) ?? 0) + MIN_PUSH_INTERVAL_MS - Date.now(),
    );
    this.pending.set(
      stationId,
      setTimeout(() => void this.push(stationId), wait),
    );
  }

  private async push(stationId: string): Promise<void> {
    this.pending.delete(stationId);
    this.lastPush.set(stationId, Date.now());
    try {
      const station = await this.stations.get(stationId);
      this.server.to(stationRoom(stationId)).emit(SOCKET_EVENTS.update, toUpdatePush(station));
    } catch (err) {
      this.logger.debug(`no push for ${stationId}: ${(err as Error).message}`);
    }
    if (this.lastPush.size > 10_000) this.lastPush.clear();
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribers) u();
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }
}
