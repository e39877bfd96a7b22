import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  CHAT_LIMITS,
  type ChatAuthorKind,
  type ChatBan,
  type ChatLogEntry,
  type ChatMessage,
  type ChatReport,
} from '@radiobroadcaster/contracts';
import type { DataSource } from 'typeorm';

export interface ChatSettingsRow {
  enabled: boolean;
  signedInOnly: boolean;
  linksAllowed: boolean;
  slowModeSeconds: number;
  playerChat: boolean;
  retentionDays: number;
  words: string[];
  pinnedMessageId: string | null;
  webhooks: boolean;
}

export const DEFAULT_SETTINGS: ChatSettingsRow = {
  enabled: true,
  signedInOnly: false,
  linksAllowed: false,
  slowModeSeconds: 0,
  playerChat: false,
  retentionDays: CHAT_LIMITS.retentionDaysDefault,
  words: [],
  pinnedMessageId: null,
  webhooks: false,
};

interface MessageRow {
  id: string;
  station_id: string;
  user_id: string | null;
  guest_id: string | null;
  author_name: string;
  author_username: string | null;
  author_kind: ChatAuthorKind;
  text: string;
  sent_at: Date | string;
}

export interface StoredMessage extends ChatMessage {
  userId: string | null;
  guestId: string | null;
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function toMessage(r: MessageRow): StoredMessage {
  return {
    id: r.id,
    stationId: r.station_id,
    author: { name: r.author_name, username: r.author_username, kind: r.author_kind },
    text: r.text,
    sentAt: iso(r.sent_at),
    userId: r.user_id,
    guestId: r.guest_id,
  };
}

/** The public shape of a message (no account or guest ids). */
export function publicMessage(m: StoredMessage): ChatMessage {
  return { id: m.id, stationId: m.stationId, author: m.author, text: m.text, sentAt: m.sentAt };
}

/** All SQL of the chat: messages, settings, moderators, bans, the log, reports, presence visibility. */
@Injectable()
export class ChatRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async settings(stationId: string): Promise<ChatSettingsRow> {
    const [r] = (await this.db.query(
      `SELECT enabled, signed_in_only, links_allowed, slow_mode_seconds, player_chat, retention_days,
              words, pinned_message_id, webhooks FROM chat_settings WHERE station_id = $1`,
      [stationId],
    )) as Record<string, unknown>[];
    if (!r) return { ...DEFAULT_SETTINGS };
    return {
      enabled: r.enabled as boolean,
      signedInOnly: r.signed_in_only as boolean,
      linksAllowed: r.links_allowed as boolean,
      slowModeSeconds: r.slow_mode_seconds as number,
      playerChat: r.player_chat as boolean,
      retentionDays: r.retention_days as number,
      words: (typeof r.words === 'string' ? JSON.parse(r.words) : r.words) as string[],
      pinnedMessageId: (r.pinned_message_id as string | null) ?? null,
      webhooks: r.webhooks as boolean,
    };
  }

  async saveSettings(stationId: string, s: ChatSettingsRow): Promise<void> {
    await this.db.query(
      `INSERT INTO chat_settings (station_id, enabled, signed_in_only, links_allowed, slow_mode_seconds,
         player_chat, retention_days, words, pinned_message_id, webhooks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)
       ON CONFLICT (station_id) DO UPDATE SET enabled = $2, signed_in_only = $3, links_allowed = $4,
         slow_mode_seconds = $5, player_chat = $6, retention_days = $7, words = $8::jsonb,
         pinned_message_id = $9, webhooks = $10`,
      [
        stationId,
        s.enabled,
        s.signedInOnly,
        s.linksAllowed,
        s.slowModeSeconds,
        s.playerChat,
        s.retentionDays,
        JSON.stringify(s.words),
        s.pinnedMessageId,
        s.webhooks,
      ],
    );
  }

  async insert(m: {
    stationId: string;
    userId: string | null;
    guestId: string | null;
    name: string;
    username: string | null;
    kind: ChatAuthorKind;
    text: string;
  }): Promise<StoredMessage> {
    const [r] = (await this.db.query(
      `INSERT INTO chat_messages (station_id, user_id, guest_id, author_name, author_username, author_kind, text)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [m.stationId, m.userId, m.guestId, m.name, m.username, m.kind, m.text],
    )) as MessageRow[];
    return toMessage(r!);
  }

  /** The newest `limit` messages, oldest first. */
  async recent(stationId: string, limit: number): Promise<StoredMessage[]> {
    const rows = (await this.db.query(
      `SELECT * FROM (SELECT * FROM chat_messages WHERE station_id = $1 ORDER BY sent_at DESC, id DESC LIMIT $2) m
       ORDER BY sent_at, id`,
      [stationId, limit],
    )) as MessageRow[];
    return rows.map(toMessage);
  }

  async between(stationId: string, from: Date, to: Date): Promise<StoredMessage[]> {
    const rows = (await this.db.query(
      `SELECT * FROM chat_messages WHERE station_id = $1 AND sent_at >= $2 AND sent_at <= $3
       ORDER BY sent_at, id LIMIT 5000`,
      [stationId, from, to],
    )) as MessageRow[];
    return rows.map(toMessage);
  }

  async all(stationId: string): Promise<StoredMessage[]> {
    const rows = (await this.db.query(
      `SELECT * FROM chat_messages WHERE station_id = $1 ORDER BY sent_at, id`,
      [stationId],
    )) as MessageRow[];
    return rows.map(toMessage);
  }

  async message(stationId: string, id: string): Promise<StoredMessage | null> {
    const [r] = (await this.db.query(
      `SELECT * FROM chat_messages WHERE station_id = $1 AND id = $2`,
      [stationId, id],
    )) as MessageRow[];
    return r ? toMessage(r) : null;
  }

  async delete(stationId: string, id: string): Promise<boolean> {
    const rows = (await this.db.query(
      `DELETE FROM chat_messages WHERE station_id = $1 AND id = $2 RETURNING id`,
      [stationId, id],
    )) as unknown[];
    return rowCount(rows) > 0;
  }

  /** Deletes every message of an account or a guest in the station; their ids. */
  async deleteBy(stationId: string, subject: Subject): Promise<string[]> {
    const column = subject.kind === 'user' ? 'user_id' : 'guest_id';
    const rows = (await this.db.query(
      `DELETE FROM chat_messages WHERE station_id = $1 AND ${column} = $2 RETURNING id`,
      [stationId, subject.id],
    )) as { id: string }[];
    return flat<{ id: string }>(rows).map((r) => r.id);
  }

  async clear(stationId: string): Promise<void> {
    await this.db.query(`DELETE FROM chat_messages WHERE station_id = $1`, [stationId]);
  }

  /** Messages older than their station's retention. */
  async expire(): Promise<number> {
    const rows = (await this.db.query(
      `DELETE FROM chat_messages m WHERE m.sent_at < now() - make_interval(days => COALESCE(
         (SELECT s.retention_days FROM chat_settings s WHERE s.station_id = m.station_id), $1))
         AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.station_id = m.station_id
           AND m.sent_at BETWEEN r.started_at AND COALESCE(r.ended_at, now()))
       RETURNING m.id`,
      [CHAT_LIMITS.retentionDaysDefault],
    )) as unknown[];
    return rowCount(rows);
  }

  async isModerator(stationId: string, userId: string): Promise<boolean> {
    const rows = (await this.db.query(
      `SELECT 1 FROM chat_moderators WHERE station_id = $1 AND user_id = $2`,
      [stationId, userId],
    )) as unknown[];
    return rows.length > 0;
  }

  async moderators(stationId: string): Promise<{ username: string; name: string }[]> {
    return (await this.db.query(
      `SELECT u.username, u.name FROM chat_moderators m JOIN users u ON u.id = m.user_id
       WHERE m.station_id = $1 ORDER BY u.username`,
      [stationId],
    )) as { username: string; name: string }[];
  }

  async setModerator(stationId: string, userId: string, on: boolean): Promise<void> {
    await this.db.query(
      on
        ? `INSERT INTO chat_moderators (station_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`
        : `DELETE FROM chat_moderators WHERE station_id = $1 AND user_id = $2`,
      [stationId, userId],
    );
  }

  async ban(stationId: string, subject: string, name: string, until: Date | null): Promise<void> {
    await this.db.query(
      `INSERT INTO chat_bans (station_id, subject, name, until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (station_id, subject) DO UPDATE SET name = $3, until = $4, created_at = now()`,
      [stationId, subject, name, until],
    );
  }

  async unban(stationId: string, subject: string): Promise<boolean> {
    const rows = (await this.db.query(
      `DELETE FROM chat_bans WHERE station_id = $1 AND subject = $2 RETURNING subject`,
      [stationId, subject],
    )) as unknown[];
    return rowCount(rows) > 0;
  }

  /** The ban in force on any of `subjects`: its end (null = for good), or undefined when none. */
  async banned(stationId: string, subjects: string[]): Promise<Date | null | undefined> {
    const [r] = (await this.db.query(
      `SELECT until FROM chat_bans WHERE station_id = $1 AND subject = ANY($2)
         AND (until IS NULL OR until > now()) ORDER BY until DESC NULLS FIRST LIMIT 1`,
      [stationId, subjects],
    )) as { until: Date | string | null }[];
    if (!r) return undefined;
    return r.until === null ? null : new Date(r.until);
  }

  async bans(stationId: string): Promise<ChatBan[]> {
    const rows = (await this.db.query(
      `SELECT subject, name, until, created_at FROM chat_bans WHERE station_id = $1
         AND (until IS NULL OR until > now()) ORDER BY created_at DESC`,
      [stationId],
    )) as { subject: string; name: string; until: Date | null; created_at: Date }[];
    return rows.map((r) => ({
      subject: r.subject,
      name: r.name,
      until: r.until ? iso(r.until) : null,
      createdAt: iso(r.created_at),
    }));
  }

  async log(
    stationId: string,
    actor: string,
    action: string,
    target: string | null,
    detail: string | null,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO chat_log (station_id, actor, action, target, detail) VALUES ($1, $2, $3, $4, $5)`,
      [stationId, actor, action, target?.slice(0, 120) ?? null, detail],
    );
  }

  async logEntries(stationId: string): Promise<ChatLogEntry[]> {
    const rows = (await this.db.query(
      `SELECT id, at, actor, action, target, detail FROM chat_log WHERE station_id = $1
       ORDER BY at DESC LIMIT 500`,
      [stationId],
    )) as (Omit<ChatLogEntry, 'at'> & { at: Date })[];
    return rows.map((r) => ({ ...r, at: iso(r.at) }));
  }

  async report(stationId: string, messageId: string, reporter: string, reason: string | null) {
    await this.db.query(
      `INSERT INTO chat_reports (station_id, message_id, reporter, reason) VALUES ($1, $2, $3, $4)`,
      [stationId, messageId, reporter, reason],
    );
  }

  async reports(stationId: string): Promise<ChatReport[]> {
    const rows = (await this.db.query(
      `SELECT r.id AS report_id, r.at AS report_at, r.reporter, r.reason, m.*
       FROM chat_reports r LEFT JOIN chat_messages m ON m.id = r.message_id
       WHERE r.station_id = $1 ORDER BY r.at DESC LIMIT 200`,
      [stationId],
    )) as (MessageRow & {
      report_id: string;
      report_at: Date;
      reporter: string;
      reason: string | null;
    })[];
    return rows.map((r) => ({
      id: r.report_id,
      at: iso(r.report_at),
      reporter: r.reporter,
      reason: r.reason,
      message: r.id ? publicMessage(toMessage(r)) : null,
    }));
  }

  async presenceVisible(userId: string): Promise<boolean> {
    const [r] = (await this.db.query(`SELECT visible FROM presence_settings WHERE user_id = $1`, [
      userId,
    ])) as { visible: boolean }[];
    return r?.visible ?? false;
  }

  async setPresenceVisible(userId: string, visible: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO presence_settings (user_id, visible) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET visible = $2`,
      [userId, visible],
    );
  }

  async user(
    by: { id: string } | { username: string },
  ): Promise<{ id: string; username: string; name: string; image: string | null } | null> {
    const [r] = (await this.db.query(
      'id' in by
        ? `SELECT id, username, name, image FROM users WHERE id = $1`
        : `SELECT id, username, name, image FROM users WHERE lower(username) = lower($1)`,
      ['id' in by ? by.id : by.username],
    )) as { id: string; username: string; name: string; image: string | null }[];
    return r ?? null;
  }

  /** Whether a registered account has this username or display name (case-insensitive), or one of `skeletons`. */
  async nameTaken(name: string, skeletons: string[]): Promise<boolean> {
    const rows = (await this.db.query(
      `SELECT 1 FROM users WHERE lower(username) = lower($1) OR lower(name) = lower($1)
         OR lower(username) = ANY($2) OR lower(regexp_replace(name, '[\\s._''-]+', '', 'g')) = ANY($2)
       LIMIT 1`,
      [name, skeletons],
    )) as unknown[];
    return rows.length > 0;
  }
}

export type Subject = { kind: 'user' | 'guest'; id: string };
export const subjectKey = (s: Subject) => `${s.kind}:${s.id}`;

/** `DELETE … RETURNING` answers `[rows, count]` on PostgreSQL through TypeORM, rows on PGlite. */
function flat<T>(rows: unknown): T[] {
  if (
    Array.isArray(rows) &&
    rows.length === 2 &&
    Array.isArray(rows[0]) &&
    typeof rows[1] === 'number'
  )
    return rows[0] as T[];
  return rows as T[];
}
function rowCount(rows: unknown): number {
  return flat(rows).length;
}
