import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  CHAT_EVENTS,
  CHAT_LIMITS,
  type ChatAuthorKind,
  type ChatBanRequest,
  type ChatHistoryResponse,
  type ChatOwnerSettings,
  type ChatRoomSettings,
  type ChatSendAck,
  type ChatSettingsRequest,
  ErrorTag,
  type PresenceUpdate,
  type ReactionKind,
  type Station,
  stationRoom,
  textProblem,
} from '@radiobroadcaster/contracts';
import type { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { RedisService } from '../redis/redis.service.js';
import { PresenceService } from '../stations/presence.service.js';
import { StationReadModel } from '../stations/station-read-model.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import {
  ChatRepository,
  type ChatSettingsRow,
  publicMessage,
  type Subject,
  subjectKey,
} from './chat.repository.js';
import { nameSkeleton } from './names.js';
import { RoomFanout } from '../realtime/room-fanout.js';
import { PresenceRegistry } from './presence.registry.js';
import { RoomRateLimit } from './room-rate.js';

export interface Sender {
  kind: 'user' | 'guest';
  id: string;
  name: string;
  username: string | null;
}

const HTML_TAG = /<\s*\/?\s*[a-z!?][^>]*>/i;

const RETENTION_SWEEP_MS = 60 * 60 * 1000;

function refuse(error: string, message: string, retryAfterSeconds?: number): ChatSendAck {
  return retryAfterSeconds === undefined
    ? { ok: false, error, message }
    : { ok: false, error, message, retryAfterSeconds };
}

/** Chat rules, storage and moderation; pushes to the station rooms through the socket.io server. */
@Injectable()
export class ChatService implements OnModuleDestroy {
  private readonly logger = new Logger('ChatService');
  private fanout: RoomFanout | undefined;
  /** Messages a second in one room, across every node (Redis), then refusals. */
  private readonly roomRate: RoomRateLimit;
  private readonly slow = new Map<string, number>();
  private readonly redis: Redis | null;
  private readonly prefix: string;
  /** A room's pushes go out on each node at most this often, together (CHAT_PUSH_INTERVAL_MS). */
  private readonly pushIntervalMs: number;
  private readonly retention: NodeJS.Timeout;

  constructor(
    @Inject(ChatRepository) private readonly repo: ChatRepository,
    @Inject(StationReadModel) private readonly stations: StationReadModel,
    @Inject(PresenceRegistry) private readonly registry: PresenceRegistry,
    @Inject(PresenceService) private readonly counts: PresenceService,
    @Inject(RedisService) redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
    @Inject(DomainsService) private readonly domains: DomainsService,
  ) {
    this.redis = redis.client;
    this.prefix = `${config.redisPrefix}:chat`;
    this.roomRate = new RoomRateLimit(this.redis, this.prefix, config.chatRoomPerSecond);
    this.pushIntervalMs = config.chatPushIntervalMs;
    this.retention = setInterval(
      () =>
        void this.repo
          .expire()
          .catch((err: Error) => this.logger.warn(`chat retention: ${err.message}`)),
      RETENTION_SWEEP_MS,
    );
    this.retention.unref();
  }

  attach(server: Server): void {
    this.fanout = new RoomFanout(server, this.pushIntervalMs, {
      // Bursts from several nodes waiting for the same write are one burst of their sums.
      [CHAT_EVENTS.reactionBurst]: (queued, next) => {
        const a = queued as { stationId: string; counts: Partial<Record<ReactionKind, number>> };
        const b = next as typeof a;
        const counts = { ...a.counts };
        for (const [k, n] of Object.entries(b.counts))
          counts[k as ReactionKind] = (counts[k as ReactionKind] ?? 0) + (n ?? 0);
        return { stationId: a.stationId, counts };
      },
    });
  }

  /**
   * `event` to everyone in the station's room, on every node, in the order pushed: through the
   * room's batched fan-out, so a busy chat costs each socket a few writes a second.
   */
  emit(stationId: string, event: string, payload: unknown): void {
    this.fanout?.push(stationRoom(stationId), event, payload);
  }

  async presence(stationId: string): Promise<PresenceUpdate> {
    const count = this.counts.viewerCount(stationId);
    const { listeners, named } = await this.registry.listeners(stationId);
    return { stationId, count, listeners, guests: Math.max(0, count - named) };
  }

  private async station(stationId: string): Promise<Station> {
    const s = await this.stations.station(stationId);
    if (!s) throw AppError.stationNotFound();
    return s;
  }

  roomSettings(stationId: string, s: ChatSettingsRow): ChatRoomSettings {
    return {
      stationId,
      enabled: s.enabled,
      signedInOnly: s.signedInOnly,
      linksAllowed: s.linksAllowed,
      slowModeSeconds: s.slowModeSeconds,
      playerChat: s.playerChat,
    };
  }

  async history(stationId: string, limit: number): Promise<ChatHistoryResponse> {
    await this.station(stationId);
    const settings = await this.repo.settings(stationId);
    const messages = settings.enabled ? await this.repo.recent(stationId, limit) : [];
    const pinned = settings.pinnedMessageId
      ? await this.repo.message(stationId, settings.pinnedMessageId)
      : null;
    return {
      messages: messages.map(publicMessage),
      pinned: pinned ? publicMessage(pinned) : null,
      settings: this.roomSettings(stationId, settings),
    };
  }

  /** Whether a page on `origin` (another site) may chat: player chat on, and the site allowed. */
  async playerChatAllowed(
    stationId: string,
    origin: string,
    ownOrigins: readonly string[],
  ): Promise<boolean> {
    const station = await this.stations.station(stationId);
    if (!station) return false;
    const s = await this.repo.settings(stationId);
    if (!s.enabled || !s.playerChat) return false;
    return this.domains.originAllowed(station.broadcasterId, origin, ownOrigins);
  }

  /** Why a guest may not use `name` in this room, or null. */
  async guestNameProblem(stationId: string, name: string, guestId: string): Promise<string | null> {
    const station = await this.station(stationId);
    const settings = await this.repo.settings(stationId);
    if (!settings.enabled) return 'Chat is off for this station.';
    if (settings.signedInOnly) return 'Only signed-in listeners can chat here. Sign in to chat.';
    const skeleton = nameSkeleton(name);
    if (!skeleton) return 'Choose a name with letters or digits.';
    const b = station.broadcaster;
    if (
      [b.username, b.name, 'broadcaster', 'owner', 'moderator', 'admin', 'guest'].some(
        (n) => nameSkeleton(n) === skeleton,
      )
    )
      return 'That name is taken: it looks like the broadcaster’s. Choose another.';
    if (await this.repo.nameTaken(name, [skeleton, name.toLowerCase()]))
      return 'That name belongs to a registered account. Choose another, or sign in.';
    for (const e of await this.registry.entries(stationId))
      if (e.name && e.guestId !== guestId && nameSkeleton(e.name) === skeleton)
        return 'Someone in this chat already uses that name (or one that looks like it). Choose another.';
    return null;
  }

  private async kindOf(station: Station, sender: Sender): Promise<ChatAuthorKind> {
    if (sender.kind === 'guest') return 'guest';
    if (sender.id === station.broadcasterId) return 'owner';
    return (await this.repo.isModerator(station.id, sender.id)) ? 'moderator' : 'user';
  }

  async send(stationId: string, sender: Sender | null, raw: unknown): Promise<ChatSendAck> {
    if (typeof raw !== 'string')
      return refuse(ErrorTag.ValidationError, 'Write a message (text only).');
    if (raw.length > CHAT_LIMITS.textMax * 4)
      return refuse(
        ErrorTag.PayloadTooLarge,
        `Messages are at most ${CHAT_LIMITS.textMax} characters.`,
      );
    const station = await this.stations.station(stationId);
    if (!station) return refuse(ErrorTag.StationNotFound, 'Station not found');
    const settings = await this.repo.settings(stationId);
    if (!settings.enabled) return refuse(ErrorTag.Forbidden, 'Chat is off for this station.');
    if (!sender)
      return refuse(
        ErrorTag.Unauthorized,
        settings.signedInOnly
          ? 'Only signed-in listeners can chat here. Sign in to chat.'
          : 'Choose a name first (chat:hello).',
      );
    if (settings.signedInOnly && sender.kind === 'guest')
      return refuse(
        ErrorTag.Unauthorized,
        'Only signed-in listeners can chat here. Sign in to chat.',
      );
    const text = raw.trim();
    if (!text) return refuse(ErrorTag.ValidationError, 'Write a message.');
    if ([...text].length > CHAT_LIMITS.textMax)
      return refuse(
        ErrorTag.PayloadTooLarge,
        `Messages are at most ${CHAT_LIMITS.textMax} characters.`,
      );
    const problem = textProblem(text, { visibleOnly: true });
    if (problem) return refuse(ErrorTag.ValidationError, problem);
    if (HTML_TAG.test(text))
      return refuse(ErrorTag.ValidationError, 'Messages are plain text: remove the HTML tags.');
    const subject: Subject = { kind: sender.kind, id: sender.id };
    const kind = await this.kindOf(station, sender);
    const moderator = kind === 'owner' || kind === 'moderator';
    if (!moderator) {
      const ban = await this.repo.banned(stationId, [subjectKey(subject)]);
      if (ban === null) return refuse(ErrorTag.Forbidden, 'You are banned from this chat.');
      if (ban) {
        const s = Math.max(1, Math.ceil((ban.getTime() - Date.now()) / 1000));
        return refuse(ErrorTag.Forbidden, `You are timed out for ${s} more seconds.`, s);
      }
      const word = this.filtered(text, settings.words);
      if (word)
        return refuse(
          ErrorTag.ValidationError,
          'That message has a word this station does not allow.',
        );
    }
    if (!(await this.roomRate.take(stationId)))
      return refuse(ErrorTag.RateLimited, 'The chat is very busy: try again in a moment.', 1);
    if (!moderator && settings.slowModeSeconds > 0) {
      const wait = await this.slowModeWait(stationId, subject, settings.slowModeSeconds);
      if (wait > 0)
        return refuse(
          ErrorTag.RateLimited,
          `Slow mode is on: you can send another message in ${wait} s.`,
          wait,
        );
    }
    const stored = await this.repo.insert({
      stationId,
      userId: sender.kind === 'user' ? sender.id : null,
      guestId: sender.kind === 'guest' ? sender.id : null,
      name: sender.name,
      username: sender.username,
      kind,
      text,
    });
    const message = publicMessage(stored);
    // One emit on this node: the Redis adapter hands it to every other node's sockets once.
    this.emit(stationId, CHAT_EVENTS.message, message);
    if (settings.webhooks) this.hook(stationId, 'chat.message', { message });
    return { ok: true, message, slowModeSeconds: moderator ? 0 : settings.slowModeSeconds };
  }

  private filtered(text: string, words: string[]): string | null {
    if (!words.length) return null;
    const lower = text.toLowerCase();
    const skeleton = nameSkeleton(text);
    for (const w of words) {
      const lw = w.toLowerCase();
      if (lower.includes(lw) || skeleton.includes(nameSkeleton(w))) return w;
    }
    return null;
  }

  /** Seconds until `subject` may send again (0: now, and the wait starts over). */
  private async slowModeWait(
    stationId: string,
    subject: Subject,
    seconds: number,
  ): Promise<number> {
    const key = `${this.prefix}:slow:${stationId}:${subjectKey(subject)}`;
    if (this.redis) {
      const set = await this.redis.set(key, '1', 'PX', seconds * 1000, 'NX');
      if (set === 'OK') return 0;
      return Math.max(1, Math.ceil((await this.redis.pttl(key)) / 1000));
    }
    const now = Date.now();
    const until = this.slow.get(key) ?? 0;
    if (until > now) return Math.max(1, Math.ceil((until - now) / 1000));
    this.slow.set(key, now + seconds * 1000);
    if (this.slow.size > 10_000) for (const [k, v] of this.slow) if (v <= now) this.slow.delete(k);
    return 0;
  }

  // — moderation —

  /** The caller's role in the station's chat; 403 unless owner (or moderator when allowed). */
  private async actor(
    userId: string,
    stationId: string,
    ownerOnly = false,
  ): Promise<{ station: Station; name: string; owner: boolean }> {
    const station = await this.station(stationId);
    const owner = station.broadcasterId === userId;
    if (!owner && (ownerOnly || !(await this.repo.isModerator(stationId, userId))))
      throw AppError.forbidden(
        ownerOnly
          ? 'Only the station’s owner can do this.'
          : 'Only the station’s owner and its chat moderators can do this.',
      );
    const user = await this.repo.user({ id: userId });
    return { station, name: user?.username ?? 'unknown', owner };
  }

  async ownerSettings(userId: string, stationId: string): Promise<ChatOwnerSettings> {
    await this.actor(userId, stationId);
    return this.settingsView(stationId, await this.repo.settings(stationId));
  }

  private async settingsView(stationId: string, s: ChatSettingsRow): Promise<ChatOwnerSettings> {
    return {
      ...this.roomSettings(stationId, s),
      retentionDays: s.retentionDays,
      words: s.words,
      moderators: await this.repo.moderators(stationId),
      webhooks: s.webhooks,
    };
  }

  async updateSettings(userId: string, body: ChatSettingsRequest): Promise<ChatOwnerSettings> {
    const { stationId, ...changes } = body;
    const moderatorFields = new Set(['signedInOnly', 'slowModeSeconds']);
    const ownerOnly = Object.keys(changes).some((k) => !moderatorFields.has(k));
    const { name } = await this.actor(userId, stationId, ownerOnly);
    const current = await this.repo.settings(stationId);
    const next: ChatSettingsRow = { ...current };
    for (const [k, v] of Object.entries(changes))
      if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
    if (changes.words)
      next.words = [...new Set(changes.words.map((w) => w.trim()).filter(Boolean))];
    await this.repo.saveSettings(stationId, next);
    const logged = Object.entries(changes)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => (k === 'words' ? `words (${(v as string[]).length})` : `${k}=${String(v)}`))
      .join(', ');
    await this.repo.log(stationId, name, 'settings', null, logged);
    this.emit(stationId, CHAT_EVENTS.settings, this.roomSettings(stationId, next));
    return this.settingsView(stationId, next);
  }

  async deleteMessage(userId: string, stationId: string, messageId: string): Promise<void> {
    const { name } = await this.actor(userId, stationId);
    const m = await this.repo.message(stationId, messageId);
    if (!m || !(await this.repo.delete(stationId, messageId)))
      throw AppError.notFound('Message not found');
    await this.repo.log(stationId, name, 'delete', m.author.name, m.text.slice(0, 200));
    this.emit(stationId, CHAT_EVENTS.deleted, { id: messageId });
    await this.unpinIf(stationId, [messageId]);
  }

  private async unpinIf(stationId: string, ids: string[]): Promise<void> {
    const s = await this.repo.settings(stationId);
    if (s.pinnedMessageId && ids.includes(s.pinnedMessageId)) {
      await this.repo.saveSettings(stationId, { ...s, pinnedMessageId: null });
      this.emit(stationId, CHAT_EVENTS.pinned, { stationId, message: null });
    }
  }

  /** Bans (or times out) a user or guest, and removes their messages for everyone. */
  async ban(userId: string, body: ChatBanRequest): Promise<{ subject: string; name: string }> {
    const { station, name: actor } = await this.actor(userId, body.stationId);
    let subject: Subject;
    let name: string;
    if (body.messageId) {
      const m = await this.repo.message(body.stationId, body.messageId);
      if (!m) throw AppError.notFound('Message not found');
      subject = m.userId ? { kind: 'user', id: m.userId } : { kind: 'guest', id: m.guestId! };
      name = m.author.name;
    } else if (body.username) {
      const u = await this.repo.user({ username: body.username });
      if (!u) throw new AppError(ErrorTag.UserNotFound, 'User not found');
      subject = { kind: 'user', id: u.id };
      name = u.username;
    } else {
      subject = { kind: 'guest', id: body.guestId! };
      name = 'guest';
    }
    if (subject.kind === 'user' && subject.id === station.broadcasterId)
      throw AppError.validation('The owner cannot be banned from their own chat.');
    if (subject.kind === 'user' && subject.id === userId)
      throw AppError.validation('You cannot ban yourself.');
    const until = body.durationSeconds ? new Date(Date.now() + body.durationSeconds * 1000) : null;
    await this.repo.ban(body.stationId, subjectKey(subject), name, until);
    const removed = until ? [] : await this.repo.deleteBy(body.stationId, subject);
    for (const id of removed) this.emit(body.stationId, CHAT_EVENTS.deleted, { id });
    await this.unpinIf(body.stationId, removed);
    await this.repo.log(
      body.stationId,
      actor,
      until ? 'timeout' : 'ban',
      name,
      until ? `${body.durationSeconds} s` : `${removed.length} messages removed`,
    );
    return { subject: subjectKey(subject), name };
  }

  async unban(userId: string, stationId: string, subject: string): Promise<void> {
    const { name } = await this.actor(userId, stationId);
    if (!(await this.repo.unban(stationId, subject))) throw AppError.notFound('No such ban');
    await this.repo.log(stationId, name, 'unban', subject, null);
  }

  async bans(userId: string, stationId: string) {
    await this.actor(userId, stationId);
    return { bans: await this.repo.bans(stationId) };
  }

  async clear(userId: string, stationId: string): Promise<void> {
    const { name } = await this.actor(userId, stationId);
    await this.repo.clear(stationId);
    const s = await this.repo.settings(stationId);
    if (s.pinnedMessageId) await this.repo.saveSettings(stationId, { ...s, pinnedMessageId: null });
    await this.repo.log(stationId, name, 'clear', null, null);
    this.emit(stationId, CHAT_EVENTS.cleared, { stationId });
  }

  async pin(userId: string, stationId: string, messageId: string | null): Promise<void> {
    const { name } = await this.actor(userId, stationId);
    const m = messageId ? await this.repo.message(stationId, messageId) : null;
    if (messageId && !m) throw AppError.notFound('Message not found');
    const s = await this.repo.settings(stationId);
    await this.repo.saveSettings(stationId, { ...s, pinnedMessageId: messageId });
    await this.repo.log(
      stationId,
      name,
      m ? 'pin' : 'unpin',
      m?.author.name ?? null,
      m?.text ?? null,
    );
    this.emit(stationId, CHAT_EVENTS.pinned, { stationId, message: m ? publicMessage(m) : null });
  }

  async setModerator(userId: string, stationId: string, username: string, on: boolean) {
    const { name } = await this.actor(userId, stationId, true);
    const u = await this.repo.user({ username });
    if (!u) throw new AppError(ErrorTag.UserNotFound, 'User not found');
    await this.repo.setModerator(stationId, u.id, on);
    await this.repo.log(
      stationId,
      name,
      on ? 'moderator-add' : 'moderator-remove',
      u.username,
      null,
    );
    return { moderators: await this.repo.moderators(stationId) };
  }

  async log(userId: string, stationId: string) {
    await this.actor(userId, stationId, true);
    return { entries: await this.repo.logEntries(stationId) };
  }

  async report(
    reporter: string,
    stationId: string,
    messageId: string,
    reason: string | undefined,
  ): Promise<void> {
    const m = await this.repo.message(stationId, messageId);
    if (!m) throw AppError.notFound('Message not found');
    await this.repo.report(stationId, messageId, reporter, reason ?? null);
  }

  async reports(userId: string, stationId: string) {
    await this.actor(userId, stationId);
    return { reports: await this.repo.reports(stationId) };
  }

  async export(userId: string, stationId: string) {
    const { station } = await this.actor(userId, stationId, true);
    const messages = await this.repo.all(stationId);
    return {
      station: { id: station.id, name: station.name },
      exportedAt: new Date().toISOString(),
      messages: messages.map(publicMessage),
    };
  }

  /** One `reaction.burst` webhook per burst, when the owner turned chat webhooks on. */
  reactionBurst(stationId: string, counts: Partial<Record<ReactionKind, number>>): void {
    void this.repo
      .settings(stationId)
      .then((s) => {
        if (s.webhooks) this.hook(stationId, 'reaction.burst', { counts });
      })
      .catch((err: Error) => this.logger.warn(`reaction.burst webhook: ${err.message}`));
  }

  private hook(stationId: string, type: 'chat.message' | 'reaction.burst', data: object): void {
    this.webhooks
      .emit(stationId, type, data)
      .catch((err: Error) => this.logger.warn(`${type} webhook for ${stationId}: ${err.message}`));
  }

  onModuleDestroy(): void {
    clearInterval(this.retention);
    this.fanout?.close();
  }
}
