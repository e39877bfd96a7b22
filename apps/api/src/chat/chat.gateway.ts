import { randomUUID } from 'node:crypto';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import {
  CHAT_EVENTS,
  type ChatSendAck,
  ErrorTag,
  GuestName,
  type PresenceUpdate,
  REACTION_KINDS,
  type ReactionKind,
  StationId,
  stationRoom,
} from '@radiobroadcaster/contracts';
import type { Request } from 'express';
import type { Server, Socket } from 'socket.io';
import { SessionJwtStrategy } from '../auth/session-jwt.strategy.js';
import { TokenSigner } from '../common/signed-token.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { TokenBucket } from '../realtime/token-bucket.js';
import { PresenceService } from '../stations/presence.service.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService, type Sender } from './chat.service.js';
import { listed, PresenceRegistry } from './presence.registry.js';

interface SocketData {
  /** The page's origin when it is another site's (the embedded player): guests only there. */
  foreign?: string;
  /** Set once the session (if any) is read, at connection. */
  ready?: Promise<void>;
  userId?: string;
  user?: { id: string; username: string; name: string; image: string | null; visible: boolean };
  guest?: { id: string; name: string };
  chatBucket?: TokenBucket;
  helloBucket?: TokenBucket;
  reactionBucket?: TokenBucket;
  /** Stations this page plays. */
  playing?: Set<string>;
}

type Ack = { ok: true; [k: string]: unknown } | { ok: false; error: string; message: string };

const REACTION_FLUSH_MS = 500;
const NEWCOMER_READ_MS = 100;
const GUEST_TOKEN_TTL_S = 24 * 3600;

/**
 * Presence, chat and reactions on the station rooms `station:join` fills: who is in a room is
 * followed through the adapter's join/leave events, so this never touches how joins are decided.
 */
@WebSocketGateway()
export class ChatGateway
  implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy
{
  @WebSocketServer() server!: Server;
  private readonly logger = new Logger('ChatGateway');
  private readonly guestTokens: TokenSigner<{ g: string }>;
  private readonly presenceTimers = new Map<string, NodeJS.Timeout>();
  private readonly newcomerReads = new Map<string, { at: number; read: Promise<PresenceUpdate> }>();
  private readonly reactions = new Map<string, Partial<Record<ReactionKind, number>>>();
  private readonly reactionTimer: NodeJS.Timeout;
  private readonly offs: (() => void)[] = [];
  private readonly ownOrigins: readonly string[];
  /** Set when the app stops: sockets still leaving then change nothing. */
  private closed = false;

  constructor(
    @Inject(SessionJwtStrategy) private readonly sessions: SessionJwtStrategy,
    @Inject(ChatRepository) private readonly repo: ChatRepository,
    @Inject(ChatService) private readonly chat: ChatService,
    @Inject(PresenceRegistry) private readonly registry: PresenceRegistry,
    @Inject(PresenceService) private readonly counts: PresenceService,
    @Inject(EventBus) bus: EventBus,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.guestTokens = new TokenSigner(config.authSecret, 'chat-guest');
    this.ownOrigins = config.trustedOrigins;
    this.registry.onExpired = (stationId) => this.presenceChanged(stationId);
    this.offs.push(
      bus.subscribe('station.listeners', ({ stationId }, meta) => {
        if (meta.local) this.presenceChanged(stationId);
      }),
    );
    this.reactionTimer = setInterval(() => this.flushReactions(), REACTION_FLUSH_MS);
    this.reactionTimer.unref();
  }

  afterInit(server: Server): void {
    this.chat.attach(server);
    const adapter = server.of('/').adapter;
    adapter.on('join-room', (room: string, socketId: string) => {
      if (room.startsWith('station:')) void this.entered(room.slice(8), socketId);
    });
    adapter.on('leave-room', (room: string, socketId: string) => {
      if (room.startsWith('station:')) void this.left(room.slice(8), socketId);
    });
  }

  handleConnection(client: Socket): void {
    const data = client.data as SocketData;
    data.chatBucket = new TokenBucket(1, 5);
    data.helloBucket = new TokenBucket(1, 12);
    data.reactionBucket = new TokenBucket(8, 16);
    data.playing = new Set();
    data.ready = this.identify(client).catch((err: Error) => {
      this.logger.warn(`socket session not read: ${err.message}`);
    });
  }

  handleDisconnect(): void {
    // Rooms are left through the adapter's leave-room events.
  }

  /** The signed-in user of the handshake (cookie, or `auth.token` for other clients). */
  private async identify(client: Socket): Promise<void> {
    const origin = client.handshake.headers.origin;
    if (origin && !this.ownOrigins.includes(origin)) {
      // Another site's page cannot know our users: whatever it sends, it chats as a guest.
      (client.data as SocketData).foreign = origin;
      return;
    }
    const headers = { ...client.handshake.headers };
    const token = (client.handshake.auth as { token?: unknown } | undefined)?.token;
    if (typeof token === 'string' && token.length < 4096) headers.authorization = `Bearer ${token}`;
    const req = {
      headers,
      cookies: headers.cookie ? parseCookie(headers.cookie) : {},
    } as unknown as Request;
    const auth = await this.sessions.authenticateRequest(req, {});
    if (!auth) return;
    const user = await this.repo.user({ id: auth.userId });
    if (!user) return;
    const data = client.data as SocketData;
    data.userId = user.id;
    data.user = { ...user, visible: await this.repo.presenceVisible(user.id) };
  }

  private entry(client: Socket, stationId: string) {
    const data = client.data as SocketData;
    const playing = data.playing?.has(stationId) ?? false;
    if (data.user)
      return {
        userId: data.user.id,
        guestId: null,
        name: data.user.name,
        username: data.user.username,
        avatarUrl: data.user.image,
        visible: data.user.visible,
        playing,
      };
    return {
      userId: null,
      guestId: data.guest?.id ?? null,
      name: data.guest?.name ?? null,
      username: null,
      avatarUrl: null,
      visible: !!data.guest,
      playing,
    };
  }

  private async entered(stationId: string, socketId: string): Promise<void> {
    const client = this.server.of('/').sockets.get(socketId);
    if (!client) return;
    await (client.data as SocketData).ready;
    if (!client.rooms.has(stationRoom(stationId))) return;
    const entry = this.entry(client, stationId);
    await this.registry.set(stationId, socketId, entry);
    // An anonymous page changes nothing the list shows (the count is the audio's, pushed when it
    // changes): the room hears only of named people; the newcomer gets the list now.
    if (listed(entry)) this.presenceChanged(stationId);
    void this.newcomerPresence(stationId)
      .then((p) => client.emit(CHAT_EVENTS.presence, p))
      .catch((err: Error) => this.logger.warn(`presence of ${stationId}: ${err.message}`));
  }

  /**
   * The list a newcomer gets: one read of the registry shared by the joins of the same 100 ms (a
   * crowd arriving at once would read it once each). Nothing is missed: a change after the read is
   * pushed to the room, newcomers included, within 150 ms of it.
   */
  private newcomerPresence(stationId: string): Promise<PresenceUpdate> {
    const now = Date.now();
    const shared = this.newcomerReads.get(stationId);
    if (shared && now - shared.at < NEWCOMER_READ_MS) return shared.read;
    if (this.newcomerReads.size > 10_000) this.newcomerReads.clear();
    const read = this.chat.presence(stationId);
    this.newcomerReads.set(stationId, { at: now, read });
    read.catch(() => this.newcomerReads.delete(stationId));
    return read;
  }

  private async left(stationId: string, socketId: string): Promise<void> {
    if (this.closed) return;
    if (await this.registry.remove(stationId, socketId)) this.presenceChanged(stationId);
  }

  /** One `presence:update` per station at most every 150 ms, read when it goes out. */
  presenceChanged(stationId: string): void {
    if (this.closed || this.presenceTimers.has(stationId)) return;
    const t = setTimeout(() => {
      this.presenceTimers.delete(stationId);
      void this.chat
        .presence(stationId)
        .then((p) => this.server.to(stationRoom(stationId)).emit(CHAT_EVENTS.presence, p))
        .catch((err: Error) => this.logger.warn(`presence of ${stationId}: ${err.message}`));
    }, 150);
    t.unref();
    this.presenceTimers.set(stationId, t);
  }

  /** Another site's page chats only where the owner turned player chat on and lists that site. */
  private async foreignRefusal(
    data: SocketData,
    stationId: string,
  ): Promise<{ ok: false; error: string; message: string } | null> {
    if (!data.foreign) return null;
    if (await this.chat.playerChatAllowed(stationId, data.foreign, this.ownOrigins)) return null;
    return {
      ok: false,
      error: ErrorTag.DomainNotAllowed,
      message: 'Chat is not available in the player on this site.',
    };
  }

  /** The room of a body's station, if this socket is in it. */
  private room(client: Socket, body: unknown): string | null {
    const id = StationId.safeParse((body as { stationId?: unknown } | null)?.stationId);
    if (!id.success) return null;
    return client.rooms.has(stationRoom(id.data)) ? id.data : null;
  }

  @SubscribeMessage(CHAT_EVENTS.presenceState)
  async presenceState(@ConnectedSocket() client: Socket, @MessageBody() body: unknown) {
    const stationId = this.room(client, body);
    if (!stationId) return notInRoom();
    const data = client.data as SocketData;
    await data.ready;
    const playing = (body as { playing?: unknown }).playing === true;
    if (playing) data.playing!.add(stationId);
    else data.playing!.delete(stationId);
    await this.registry.set(stationId, client.id, this.entry(client, stationId));
    this.presenceChanged(stationId);
    return { ok: true };
  }

  @SubscribeMessage(CHAT_EVENTS.hello)
  async hello(@ConnectedSocket() client: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const data = client.data as SocketData;
    if (!data.helloBucket!.take()) return rateLimited();
    const stationId = this.room(client, body);
    if (!stationId) return notInRoom();
    await data.ready;
    const refused = await this.foreignRefusal(data, stationId);
    if (refused) return refused;
    if (data.user)
      return { ok: true, name: data.user.name, username: data.user.username, kind: 'user' };
    const b = body as { name?: unknown; guestToken?: unknown };
    const parsed = GuestName.safeParse(b.name);
    if (!parsed.success)
      return {
        ok: false,
        error: ErrorTag.ValidationError,
        message: parsed.error.issues[0]?.message ?? 'Choose a name',
      };
    const name = parsed.data;
    let guestId = data.guest?.id;
    if (!guestId && typeof b.guestToken === 'string') {
      const v = this.guestTokens.verify(b.guestToken);
      if (v.ok) guestId = v.claims.g;
    }
    guestId ??= randomUUID();
    const problem = await this.chat.guestNameProblem(stationId, name, guestId);
    if (problem) return { ok: false, error: ErrorTag.Conflict, message: problem };
    data.guest = { id: guestId, name };
    await this.registry.set(stationId, client.id, this.entry(client, stationId));
    this.presenceChanged(stationId);
    const { token } = this.guestTokens.sign({ g: guestId }, GUEST_TOKEN_TTL_S);
    return { ok: true, name, kind: 'guest', guestId, guestToken: token };
  }

  @SubscribeMessage(CHAT_EVENTS.send)
  async send(
    @ConnectedSocket() client: Socket,
    @MessageBody() body: unknown,
  ): Promise<ChatSendAck> {
    const data = client.data as SocketData;
    if (!data.chatBucket!.take()) return rateLimited();
    const stationId = this.room(client, body);
    if (!stationId) return notInRoom();
    await data.ready;
    const refused = await this.foreignRefusal(data, stationId);
    if (refused) return refused;
    const sender: Sender | null = data.user
      ? { kind: 'user', id: data.user.id, name: data.user.name, username: data.user.username }
      : data.guest
        ? { kind: 'guest', id: data.guest.id, name: data.guest.name, username: null }
        : null;
    return this.chat.send(stationId, sender, (body as { text?: unknown }).text);
  }

  @SubscribeMessage(CHAT_EVENTS.reactionSend)
  reaction(@ConnectedSocket() client: Socket, @MessageBody() body: unknown): Ack {
    const stationId = this.room(client, body);
    if (!stationId) return notInRoom();
    const kind = (body as { kind?: unknown }).kind;
    if (typeof kind !== 'string' || !(REACTION_KINDS as readonly string[]).includes(kind))
      return { ok: false, error: ErrorTag.ValidationError, message: 'Unknown reaction' };
    if (!(client.data as SocketData).reactionBucket!.take()) return rateLimited();
    let counts = this.reactions.get(stationId);
    if (!counts) this.reactions.set(stationId, (counts = {}));
    counts[kind as ReactionKind] = (counts[kind as ReactionKind] ?? 0) + 1;
    return { ok: true };
  }

  /**
   * Each node passes on what its clients pressed twice a second per station; bursts of several
   * nodes that wait for the same write of the room's fan-out reach the clients as one.
   */
  private flushReactions(): void {
    if (!this.reactions.size) return;
    const batch = [...this.reactions];
    this.reactions.clear();
    for (const [stationId, counts] of batch) {
      this.chat.emit(stationId, CHAT_EVENTS.reactionBurst, { stationId, counts });
      this.chat.reactionBurst(stationId, counts);
    }
  }

  /** The user changed "show me as listening": their pages on this node show it at once. */
  async visibilityChanged(userId: string, visible: boolean): Promise<void> {
    for (const client of this.server.of('/').sockets.values()) {
      const data = client.data as SocketData;
      if (data.user?.id !== userId) continue;
      data.user.visible = visible;
      for (const room of client.rooms) {
        if (!room.startsWith('station:')) continue;
        const stationId = room.slice(8);
        await this.registry.set(stationId, client.id, this.entry(client, stationId));
        this.presenceChanged(stationId);
      }
    }
  }

  onModuleDestroy(): void {
    this.closed = true;
    for (const off of this.offs) off();
    clearInterval(this.reactionTimer);
    for (const t of this.presenceTimers.values()) clearTimeout(t);
    void this.registry.close();
  }
}

/** `a=1; b=2` → `{ a: '1', b: '2' }` (the session cookie is all that is read). */
function parseCookie(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    try {
      out[k] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A cookie that is not ours, malformed: ignored.
    }
  }
  return out;
}

function notInRoom(): { ok: false; error: string; message: string } {
  return {
    ok: false,
    error: ErrorTag.Forbidden,
    message: 'Join the station first (station:join)',
  };
}

function rateLimited(): { ok: false; error: string; message: string } {
  return { ok: false, error: ErrorTag.RateLimited, message: 'Too many messages, slow down' };
}
