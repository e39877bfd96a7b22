import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AdmissionVia } from '@radiobroadcaster/contracts';
import type { DataSource } from 'typeorm';

export interface InviteRow {
  id: string;
  stationId: string;
  label: string;
  createdAt: Date;
  expiresAt: Date | null;
  maxUses: number | null;
  revokedAt: Date | null;
  uses: number;
}

export interface ListenerRow {
  id: string;
  stationId: string;
  email: string;
  createdAt: Date;
}

type RawInvite = {
  id: string;
  station_id: string;
  label: string;
  created_at: Date;
  expires_at: Date | null;
  max_uses: number | null;
  revoked_at: Date | null;
  uses: string | number;
};

const inviteRow = (r: RawInvite): InviteRow => ({
  id: r.id,
  stationId: r.station_id,
  label: r.label,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  maxUses: r.max_uses,
  revokedAt: r.revoked_at,
  uses: Number(r.uses),
});

const INVITE_SELECT = `SELECT i.id, i.station_id, i.label, i.created_at, i.expires_at, i.max_uses, i.revoked_at,
  (SELECT count(*) FROM station_invite_uses u WHERE u.invite_id = i.id) AS uses FROM station_invites i`;

/** Private stations' stored access: password, invites and their listeners, the listener list, the log. */
@Injectable()
export class AccessRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async password(stationId: string): Promise<{ hash: string | null; version: number }> {
    const rows = (await this.db.query(
      `SELECT password_hash, password_version FROM station_access WHERE station_id = $1`,
      [stationId],
    )) as { password_hash: string | null; password_version: number }[];
    const r = rows[0];
    return { hash: r?.password_hash ?? null, version: r?.password_version ?? 0 };
  }

  /** Sets (or with null removes) the password; answers the new version. */
  async setPassword(stationId: string, hash: string | null): Promise<number> {
    const rows = (await this.db.query(
      `INSERT INTO station_access (station_id, password_hash, password_version) VALUES ($1, $2, 1)
       ON CONFLICT (station_id) DO UPDATE SET password_hash = $2,
         password_version = station_access.password_version + 1
       RETURNING password_version`,
      [stationId, hash],
    )) as { password_version: number }[];
    return rows[0]!.password_version;
  }

  async createInvite(
    stationId: string,
    label: string,
    expiresAt: Date | null,
    maxUses: number | null,
  ): Promise<InviteRow> {
    const rows = (await this.db.query(
      `INSERT INTO station_invites (station_id, label, expires_at, max_uses) VALUES ($1, $2, $3, $4)
       RETURNING id`,
      [stationId, label, expiresAt, maxUses],
    )) as { id: string }[];
    return (await this.invite(rows[0]!.id))!;
  }

  async invite(id: string): Promise<InviteRow | null> {
    const rows = (await this.db.query(`${INVITE_SELECT} WHERE i.id = $1`, [id])) as RawInvite[];
    return rows[0] ? inviteRow(rows[0]) : null;
  }

  async invites(stationId: string): Promise<InviteRow[]> {
    const rows = (await this.db.query(
      `${INVITE_SELECT} WHERE i.station_id = $1 ORDER BY i.created_at DESC`,
      [stationId],
    )) as RawInvite[];
    return rows.map(inviteRow);
  }

  async revokeInvite(id: string): Promise<void> {
    await this.db.query(
      `UPDATE station_invites SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
      [id],
    );
  }

  /** Revokes every invite of the station; answers their ids. */
  async revokeAllInvites(stationId: string): Promise<string[]> {
    const rows = (await this.db.query(
      `UPDATE station_invites SET revoked_at = now() WHERE station_id = $1 AND revoked_at IS NULL
       RETURNING id`,
      [stationId],
    )) as { id: string }[] | [{ id: string }[], number];
    const list = Array.isArray(rows[0])
      ? (rows[0] as { id: string }[])
      : (rows as { id: string }[]);
    return list.map((r) => r.id);
  }

  /**
   * Counts `listenerId` as a use of the invite unless it would pass `maxUses` distinct listeners
   * (a listener already counted always passes). True when admitted.
   */
  async useInvite(inviteId: string, listenerId: string, maxUses: number | null): Promise<boolean> {
    const rows = (await this.db.query(
      `INSERT INTO station_invite_uses (invite_id, listener_id)
       SELECT $1, $2 WHERE $3::int IS NULL
         OR EXISTS (SELECT 1 FROM station_invite_uses WHERE invite_id = $1 AND listener_id = $2)
         OR (SELECT count(*) FROM station_invite_uses WHERE invite_id = $1) < $3::int
       ON CONFLICT DO NOTHING RETURNING 1 AS ok`,
      [inviteId, listenerId, maxUses],
    )) as unknown[];
    if (rows.length > 0) return true;
    const again = (await this.db.query(
      `SELECT 1 FROM station_invite_uses WHERE invite_id = $1 AND listener_id = $2`,
      [inviteId, listenerId],
    )) as unknown[];
    return again.length > 0;
  }

  async addListener(stationId: string, email: string): Promise<ListenerRow> {
    await this.db.query(
      `INSERT INTO station_listeners (station_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [stationId, email],
    );
    const rows = (await this.db.query(
      `SELECT id, station_id, email, created_at FROM station_listeners WHERE station_id = $1 AND email = $2`,
      [stationId, email],
    )) as { id: string; station_id: string; email: string; created_at: Date }[];
    const r = rows[0]!;
    return { id: r.id, stationId: r.station_id, email: r.email, createdAt: r.created_at };
  }

  async listeners(stationId: string): Promise<ListenerRow[]> {
    const rows = (await this.db.query(
      `SELECT id, station_id, email, created_at FROM station_listeners WHERE station_id = $1 ORDER BY created_at`,
      [stationId],
    )) as { id: string; station_id: string; email: string; created_at: Date }[];
    return rows.map((r) => ({
      id: r.id,
      stationId: r.station_id,
      email: r.email,
      createdAt: r.created_at,
    }));
  }

  async listener(id: string): Promise<ListenerRow | null> {
    const rows = (await this.db.query(
      `SELECT id, station_id, email, created_at FROM station_listeners WHERE id = $1`,
      [id],
    )) as { id: string; station_id: string; email: string; created_at: Date }[];
    const r = rows[0];
    return r
      ? { id: r.id, stationId: r.station_id, email: r.email, createdAt: r.created_at }
      : null;
  }

  async listenerByEmail(stationId: string, email: string): Promise<ListenerRow | null> {
    const rows = (await this.db.query(
      `SELECT id FROM station_listeners WHERE station_id = $1 AND email = $2`,
      [stationId, email.toLowerCase()],
    )) as { id: string }[];
    return rows[0] ? this.listener(rows[0].id) : null;
  }

  async removeListener(id: string): Promise<void> {
    await this.db.query(`DELETE FROM station_listeners WHERE id = $1`, [id]);
  }

  async userEmail(userId: string): Promise<string | null> {
    const rows = (await this.db.query(`SELECT email FROM users WHERE id = $1`, [userId])) as {
      email: string;
    }[];
    return rows[0]?.email ?? null;
  }

  async logAdmission(
    stationId: string,
    via: AdmissionVia,
    label: string,
    listenerId: string,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO station_admissions (station_id, via, label, listener_id) VALUES ($1, $2, $3, $4)`,
      [stationId, via, label, listenerId],
    );
  }

  async admissions(
    stationId: string,
    limit = 100,
  ): Promise<{ at: Date; via: AdmissionVia; label: string; listenerId: string }[]> {
    const rows = (await this.db.query(
      `SELECT at, via, label, listener_id FROM station_admissions WHERE station_id = $1
       ORDER BY at DESC, id DESC LIMIT $2`,
      [stationId, limit],
    )) as { at: Date; via: AdmissionVia; label: string; listener_id: string }[];
    return rows.map((r) => ({ at: r.at, via: r.via, label: r.label, listenerId: r.listener_id }));
  }
}
