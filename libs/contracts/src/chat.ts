import { z } from 'zod';
import { singleLineText } from './text.js';

/** Live together (issue 27): presence, chat, reactions and their moderation. */
export const CHAT_EVENTS = {
  /** Client → server `{ stationId, name, guestToken? }`: a guest names itself. */
  hello: 'chat:hello',
  /** Client → server `{ stationId, text }`, acknowledged with {@link ChatSendAck}. */
  send: 'chat:send',
  /** Server → room {@link ChatMessage}. */
  message: 'chat:message',
  /** Server → room `{ id }`. */
  deleted: 'chat:deleted',
  /** Server → room `{ stationId }`: every message is gone. */
  cleared: 'chat:cleared',
  /** Server → room `{ stationId, message | null }`. */
  pinned: 'chat:pinned',
  /** Server → room {@link ChatRoomSettings}. */
  settings: 'chat:settings',
  /** Client → server `{ stationId, kind }`. */
  reactionSend: 'reaction:send',
  /** Server → room {@link ReactionBurst}. */
  reactionBurst: 'reaction:burst',
  /** Server → room {@link PresenceUpdate}. */
  presence: 'presence:update',
  /** Client → server `{ stationId, playing }`: whether this page is playing the station. */
  presenceState: 'presence:state',
} as const;

export const CHAT_LIMITS = {
  textMax: 500,
  guestNameMax: 32,
  history: 100,
  wordsMax: 200,
  wordMax: 40,
  retentionDaysDefault: 30,
  retentionDaysMax: 365,
  slowModeMax: 600,
} as const;

export const REACTION_KINDS = ['heart', 'fire', 'clap', 'laugh', 'wow'] as const;
export type ReactionKind = (typeof REACTION_KINDS)[number];

export type ChatAuthorKind = 'owner' | 'moderator' | 'user' | 'guest';

export interface ChatAuthor {
  name: string;
  username: string | null;
  kind: ChatAuthorKind;
}

export interface ChatMessage {
  id: string;
  stationId: string;
  author: ChatAuthor;
  text: string;
  sentAt: string;
  /** Milliseconds from the start of the recording this message is kept with (replays only). */
  offsetMs?: number;
}

export type ChatSendAck =
  | {
      ok: true;
      message: ChatMessage;
      /**
       * Slow mode for this sender when the message was taken: seconds until the next one (0: none,
       * or a moderator). The page's countdown starts from it, not from the room's `chat:settings`
       * push, which may reach the page after this ack (pushes are batched, CHAT_PUSH_INTERVAL_MS).
       */
      slowModeSeconds?: number;
    }
  | { ok: false; error: string; message: string; retryAfterSeconds?: number };

export interface PresenceListener {
  name: string;
  username: string | null;
  avatarUrl: string | null;
  /** Playing the station, or only in its chat. */
  state: 'listening' | 'chat';
  kind: 'user' | 'guest';
}

export interface PresenceUpdate {
  stationId: string;
  /** Everyone listening (WebRTC and HTTP), as `viewerCount`. */
  count: number;
  listeners: PresenceListener[];
  /** Listeners who are not named in `listeners`. */
  guests: number;
}

export interface ReactionBurst {
  stationId: string;
  counts: Partial<Record<ReactionKind, number>>;
}

/** What every listener's client needs to know of a station's chat. */
export interface ChatRoomSettings {
  stationId: string;
  enabled: boolean;
  signedInOnly: boolean;
  linksAllowed: boolean;
  slowModeSeconds: number;
  playerChat: boolean;
}

/** The owner's view: the room settings and the rest. */
export interface ChatOwnerSettings extends ChatRoomSettings {
  retentionDays: number;
  words: string[];
  moderators: { username: string; name: string }[];
  webhooks: boolean;
}

export interface ChatHistoryResponse {
  messages: ChatMessage[];
  pinned: ChatMessage | null;
  settings: ChatRoomSettings;
}

export const GuestName = singleLineText(CHAT_LIMITS.guestNameMax, { visibleOnly: true });

const id = z.string().uuid();
export const ChatSettingsRequest = z.strictObject({
  stationId: id,
  enabled: z.boolean().optional(),
  signedInOnly: z.boolean().optional(),
  linksAllowed: z.boolean().optional(),
  slowModeSeconds: z.number().int().min(0).max(CHAT_LIMITS.slowModeMax).optional(),
  playerChat: z.boolean().optional(),
  retentionDays: z.number().int().min(1).max(CHAT_LIMITS.retentionDaysMax).optional(),
  words: z
    .array(singleLineText(CHAT_LIMITS.wordMax, { visibleOnly: true }))
    .max(CHAT_LIMITS.wordsMax)
    .optional(),
  webhooks: z.boolean().optional(),
});
export type ChatSettingsRequest = z.infer<typeof ChatSettingsRequest>;

export const ChatMessageRef = z.strictObject({ stationId: id, messageId: id });
export type ChatMessageRef = z.infer<typeof ChatMessageRef>;

/** Ban (no duration) or time out (`durationSeconds`) the author of a message, an account or a guest. */
export const ChatBanRequest = z
  .strictObject({
    stationId: id,
    messageId: id.optional(),
    username: z.string().min(1).max(64).optional(),
    guestId: id.optional(),
    durationSeconds: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .optional(),
  })
  .refine((b) => [b.messageId, b.username, b.guestId].filter(Boolean).length === 1, {
    message: 'Name one of messageId, username or guestId.',
  });
export type ChatBanRequest = z.infer<typeof ChatBanRequest>;

export const ChatUnbanRequest = z.strictObject({ stationId: id, subject: z.string().max(80) });
export const ChatStationRequest = z.strictObject({ stationId: id });
export const ChatPinRequest = z.strictObject({ stationId: id, messageId: id.nullable() });
export const ChatModeratorRequest = z.strictObject({
  stationId: id,
  username: z.string().min(1).max(64),
  moderator: z.boolean(),
});
export const ChatReportRequest = z.strictObject({
  stationId: id,
  messageId: id,
  reason: singleLineText(200).optional(),
});
export const PresenceVisibilityRequest = z.strictObject({ visible: z.boolean() });

export interface ChatBan {
  subject: string;
  name: string;
  until: string | null;
  createdAt: string;
}

export interface ChatLogEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
}

export interface ChatReport {
  id: string;
  at: string;
  reporter: string;
  reason: string | null;
  message: ChatMessage | null;
}
