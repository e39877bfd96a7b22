import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FollowerCounts, FollowSettings } from '@radiobroadcaster/contracts';
import type { DataSource } from 'typeorm';

export interface FollowRow {
  id: string;
  stationId: string;
  userId: string | null;
  /** A guest's address (accounts: null, their account's address is used). */
  email: string | null;
  confirmedAt: Date | null;
  confirmSentAt: Date | null;
  settings: FollowSettings;
}

export type NoticeKind = 'live' | 'before' | 'start';
export type Channel = 'email' | 'push';

/** What a notice says; the same for every follower of the station. */
export interface NoticePayload {
  stationId: string;
  stationName: string;
  broadcaster: string;
  url: string;
  showTitle?: string;
  startsAt?: string;
}

export interface NotificationJob {
  id: string;
  followId: string;
  channel: Channel;
  kind: NoticeKind;
  payload: NoticePayload;
  attempts: number;
}

/** Where a follower's mail goes: the guest's address or the account's. */
export interface Recipient {
  followId: string;
  stationId: string;
  address: string | null;
  userId: string | null;
}

export interface PushSubscriptionRow {
  id: string;
  userId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

const COLUMNS = `id, station_id AS "stationId", user_id AS "userId", email,
  confirmed_at AS "confirmedAt", confirm_sent_at AS "confirmSentAt",
  email_enabled AS "emailOn", push_enabled AS "pushOn", on_live AS "onLive",
  before_show AS "beforeShow", at_show_start AS "atShowStart"`;

interface Raw extends Omit<FollowRow, 'settings'> {
  emailOn: boolean;
  pushOn: boolean;
  onLive: boolean;
  beforeShow: boolean;
  atShowStart: boolean;
}

const toRow = (r: Raw): FollowRow => ({
  id: r.id,
  stationId: r.stationId,
  userId: r.userId,
  email: r.email,
  confirmedAt: r.confirmedAt,
  confirmSentAt: r.confirmSentAt,
  settings: {
    email: r.emailOn,
    push: r.pushOn,
    onLive: r.onLive,
    beforeShow: r.beforeShow,
    atShowStart: r.atShowStart,
  },
});

const SETTING_COLUMNS: Record<keyof FollowSettings, string> = {
  email: 'email_enabled',
  push: 'push_enabled',
  onLive: 'on_live',
  beforeShow: 'before_show',
  atShowStart: 'at_show_start',
};

/** Which follows a notice of each kind goes to. */
const KIND_COLUMN: Record<NoticeKind, string> = {
  live: 'on_live',
  before: 'before_show',
  start: 'at_show_start',
};

/** All follower, notice and notification-job I/O (plain SQL: the queue needs row locks). */
@Injectable()
export class FollowRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  // ---- follows ----

  async byUser(stationId: string, userId: string): Promise<FollowRow | null> {
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM follows WHERE station_id = $1 AND user_id = $2`,
      [stationId, userId],
    )) as Raw[];
    return rows[0] ? toRow(rows[0]) : null;
  }

  async byId(id: string): Promise<FollowRow | null> {
    const rows = (await this.db.query(`SELECT ${COLUMNS} FROM follows WHERE id = $1`, [
      id,
    ])) as Raw[];
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Follows (or keeps following); true when the follow is new. */
  async followAsUser(stationId: string, userId: string): Promise<boolean> {
    const rows = (await this.db.query(
      `INSERT INTO follows (station_id, user_id, confirmed_at) VALUES ($1, $2, now())
       ON CONFLICT (station_id, user_id) WHERE user_id IS NOT NULL DO NOTHING RETURNING id`,
      [stationId, userId],
    )) as { id: string }[];
    return rows.length > 0;
  }

  /**
   * The guest follow of `email` (created unconfirmed when new), and whether a confirmation mail
   * may go now (none sent within `resendMs`); marks it sent when so.
   */
  async guestFollow(
    stationId: string,
    email: string,
    resendMs: number,
  ): Promise<{ follow: FollowRow; sendConfirmation: boolean }> {
    await this.db.query(
      `INSERT INTO follows (station_id, email) VALUES ($1, $2)
       ON CONFLICT (station_id, email) WHERE email IS NOT NULL DO NOTHING`,
      [stationId, email],
    );
    const claimed = (await this.db.query(
      `UPDATE follows SET confirm_sent_at = now()
       WHERE station_id = $1 AND email = $2 AND confirmed_at IS NULL
         AND (confirm_sent_at IS NULL OR confirm_sent_at < now() - $3 * interval '1 millisecond')
       RETURNING id`,
      [stationId, email, resendMs],
    )) as [{ id: string }[], number];
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM follows WHERE station_id = $1 AND email = $2`,
      [stationId, email],
    )) as Raw[];
    return { follow: toRow(rows[0]!), sendConfirmation: claimed[1] > 0 };
  }

  /** Confirms a guest follow; true when it was waiting for it. */
  async confirm(id: string): Promise<boolean> {
    const [, n] = (await this.db.query(
      `UPDATE follows SET confirmed_at = now(), updated_at = now()
       WHERE id = $1 AND confirmed_at IS NULL`,
      [id],
    )) as [unknown, number];
    return n > 0;
  }

  async unfollowAsUser(stationId: string, userId: string): Promise<boolean> {
    const [, n] = (await this.db.query(
      `DELETE FROM follows WHERE station_id = $1 AND user_id = $2`,
      [stationId, userId],
    )) as [unknown, number];
    return n > 0;
  }

  async delete(id: string): Promise<void> {
    await this.db.query(`DELETE FROM follows WHERE id = $1`, [id]);
  }

  async updateSettings(id: string, changes: Partial<FollowSettings>): Promise<void> {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined) as [
      keyof FollowSettings,
      boolean,
    ][];
    if (entries.length === 0) return;
    const sets = entries.map(([k], i) => `${SETTING_COLUMNS[k]} = $${i + 2}`).join(', ');
    await this.db.query(`UPDATE follows SET ${sets}, updated_at = now() WHERE id = $1`, [
      id,
      ...entries.map(([, v]) => v),
    ]);
  }

  /**
   * A hard bounce: no more mail to `address` from any station (guest follows with no push go
   * altogether; accounts keep their follows with e-mail off).
   */
  async stopMailTo(address: string): Promise<number> {
    const [, n] = (await this.db.query(
      `UPDATE follows SET email_enabled = false, updated_at = now()
       WHERE email_enabled AND (email = $1 OR user_id IN (SELECT id FROM users WHERE email = $1))`,
      [address.toLowerCase()],
    )) as [unknown, number];
    return n;
  }

  async counts(stationId: string): Promise<FollowerCounts> {
    const [row] = (await this.db.query(
      `SELECT count(*) FILTER (WHERE confirmed_at IS NOT NULL)::int AS followers,
              count(*) FILTER (WHERE confirmed_at IS NOT NULL AND email_enabled)::int AS email,
              count(*) FILTER (WHERE confirmed_at IS NOT NULL AND push_enabled AND user_id IS NOT NULL
                AND EXISTS (SELECT 1 FROM push_subscriptions p WHERE p.user_id = follows.user_id))::int AS push,
              count(*) FILTER (WHERE confirmed_at IS NULL)::int AS pending
       FROM follows WHERE station_id = $1`,
      [stationId],
    )) as Omit<FollowerCounts, 'stationId'>[];
    return { stationId, ...row! };
  }

  // ---- notices: each decided once, whichever node gets there first ----

  /**
   * A go-live notice unless the station flapped (a notice, or going off air, within `flapMs`):
   * decided under the station's row lock, so two nodes hearing the same go-live make one notice.
   */
  async claimLiveNotice(stationId: string, flapMs: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO follow_station_state (station_id) VALUES ($1) ON CONFLICT DO NOTHING`,
        [stationId],
      );
      const [state] = (await m.query(
        `SELECT last_live_notice_at > now() - $2 * interval '1 millisecond' AS "recentNotice",
                last_offline_at > now() - $2 * interval '1 millisecond' AS "recentOffline"
         FROM follow_station_state WHERE station_id = $1 FOR UPDATE`,
        [stationId, flapMs],
      )) as { recentNotice: boolean | null; recentOffline: boolean | null }[];
      if (state?.recentNotice || state?.recentOffline) return false;
      await m.query(
        `UPDATE follow_station_state SET last_live_notice_at = now() WHERE station_id = $1`,
        [stationId],
      );
      return true;
    });
  }

  async markOffline(stationId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO follow_station_state (station_id, last_offline_at) VALUES ($1, now())
       ON CONFLICT (station_id) DO UPDATE SET last_offline_at = now()`,
      [stationId],
    );
  }

  /** A show reminder (`key`: show and occurrence): true for the one caller that claims it. */
  async claimNotice(stationId: string, kind: NoticeKind, key: string): Promise<boolean> {
    const rows = (await this.db.query(
      `INSERT INTO follow_notices (station_id, kind, key) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING key`,
      [stationId, kind, key],
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * Queues the notice for every confirmed follower of the station who wants this kind: one e-mail
   * job each (e-mail on), one push job each (push on, an account with a subscription).
   * `exceptOnLive`: leave out those who asked for go-live notices (they were told already).
   */
  async enqueue(
    stationId: string,
    kind: NoticeKind,
    payload: NoticePayload,
    exceptOnLive = false,
  ): Promise<number> {
    const wants = `f.station_id = $1 AND f.confirmed_at IS NOT NULL AND f.${KIND_COLUMN[kind]}
      ${exceptOnLive ? 'AND NOT f.on_live' : ''}`;
    const rows = (await this.db.query(
      `INSERT INTO notification_jobs (follow_id, channel, kind, payload)
       SELECT f.id, 'email', $2::varchar, $3::jsonb FROM follows f WHERE ${wants} AND f.email_enabled
       UNION ALL
       SELECT f.id, 'push', $2::varchar, $3::jsonb FROM follows f WHERE ${wants} AND f.push_enabled
         AND f.user_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM push_subscriptions p WHERE p.user_id = f.user_id)
       RETURNING id`,
      [stationId, kind, JSON.stringify(payload)],
    )) as unknown[];
    return rows.length;
  }

  // ---- the job queue ----

  /** Leases up to `limit` due jobs to this node for `leaseMs`. */
  async claimJobs(limit: number, leaseMs: number): Promise<NotificationJob[]> {
    const rows = (await this.db.query(
      `UPDATE notification_jobs j SET locked_until = now() + $2 * interval '1 millisecond',
              attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM notification_jobs
         WHERE status = 'pending' AND run_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING j.id, j.follow_id AS "followId", j.channel, j.kind, j.payload, j.attempts`,
      [limit, leaseMs],
    )) as [NotificationJob[], number];
    return rows[0].map((r) => ({ ...r, id: String(r.id) }));
  }

  async finishJob(
    id: string,
    status: 'sent' | 'failed' | 'dropped',
    error?: string,
  ): Promise<void> {
    await this.db.query(
      `UPDATE notification_jobs SET status = $2, last_error = $3, locked_until = NULL WHERE id = $1`,
      [id, status, error ?? null],
    );
  }

  async retryJob(id: string, afterMs: number, error: string): Promise<void> {
    await this.db.query(
      `UPDATE notification_jobs SET run_at = now() + $2 * interval '1 millisecond',
              locked_until = NULL, last_error = $3 WHERE id = $1`,
      [id, afterMs, error],
    );
  }

  async pruneJobs(olderThanMs: number): Promise<void> {
    await this.db.query(
      `DELETE FROM notification_jobs WHERE status <> 'pending'
         AND created_at < now() - $1 * interval '1 millisecond'`,
      [olderThanMs],
    );
    await this.db.query(
      `DELETE FROM follow_notices WHERE created_at < now() - $1 * interval '1 millisecond'`,
      [olderThanMs],
    );
  }

  /** The address a job's mail goes to (null: the follow or its e-mail is gone). */
  async recipient(followId: string): Promise<Recipient | null> {
    const rows = (await this.db.query(
      `SELECT f.id AS "followId", f.station_id AS "stationId", f.user_id AS "userId",
              COALESCE(f.email, u.email) AS address
       FROM follows f LEFT JOIN users u ON u.id = f.user_id
       WHERE f.id = $1 AND f.confirmed_at IS NOT NULL`,
      [followId],
    )) as Recipient[];
    return rows[0] ?? null;
  }

  // ---- push subscriptions ----

  async addPushSubscription(
    userId: string,
    sub: { endpoint: string; p256dh: string; auth: string },
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4)
       ON CONFLICT (endpoint) DO UPDATE SET user_id = $1, p256dh = $3, auth = $4`,
      [userId, sub.endpoint, sub.p256dh, sub.auth],
    );
  }

  async removePushSubscription(endpoint: string, userId?: string): Promise<boolean> {
    const [, n] = (await this.db.query(
      `DELETE FROM push_subscriptions WHERE endpoint = $1 ${userId ? 'AND user_id = $2' : ''}`,
      userId ? [endpoint, userId] : [endpoint],
    )) as [unknown, number];
    return n > 0;
  }

  async pushSubscriptions(userId: string): Promise<PushSubscriptionRow[]> {
    return (await this.db.query(
      `SELECT id, user_id AS "userId", endpoint, p256dh, auth FROM push_subscriptions
       WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    )) as PushSubscriptionRow[];
  }

  /** Shows with an occurrence that may start in [from, to]: single ones in it, repeats begun by then. */
  async showsStartingBetween(from: Date, to: Date): Promise<ReminderShow[]> {
    return (await this.db.query(
      `SELECT id, station_id AS "stationId", title, starts_at AS "startsAt",
              duration_minutes AS "durationMinutes", time_zone AS "timeZone", repeat
       FROM shows
       WHERE (repeat IS NULL AND starts_at BETWEEN $1 AND $2)
          OR (repeat IS NOT NULL AND starts_at <= $2)`,
      [from, to],
    )) as ReminderShow[];
  }

  async countPushSubscriptions(userId: string): Promise<number> {
    const [row] = (await this.db.query(
      `SELECT count(*)::int AS n FROM push_subscriptions WHERE user_id = $1`,
      [userId],
    )) as { n: number }[];
    return row?.n ?? 0;
  }
}

/** A show of any station that may start within the reminder window (repeats: all that began). */
export interface ReminderShow {
  id: string;
  stationId: string;
  title: string;
  startsAt: Date;
  durationMinutes: number;
  timeZone: string;
  repeat: import('@radiobroadcaster/contracts').ShowRepeat | null;
}
