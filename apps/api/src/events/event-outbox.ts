import type { DataSource } from 'typeorm';

/** An event as it travels: id (for de-duplication), publishing node, payload. */
export interface Envelope {
  i: string;
  o: string;
  p: unknown;
}

export interface OutboxEntry {
  name: string;
  envelope: Envelope;
}

/** Where events wait, durably, while the broker is away. */
export interface EventOutbox {
  add(entry: OutboxEntry): Promise<void>;
  /**
   * Hands the oldest waiting events, in order, to `deliver` and removes the ones it got
   * through; returns how many went (0 while another node drains). Throws when the first failed.
   */
  drain(deliver: (entry: OutboxEntry) => Promise<void>, limit?: number): Promise<number>;
  count(): Promise<number>;
}

/** The transaction-level advisory lock a node holds while it drains the outbox. */
const OUTBOX_LOCK = 7_205_118_317;

/** The outbox in the product's PostgreSQL (table `event_outbox`). */
export class PgEventOutbox implements EventOutbox {
  constructor(private readonly db: DataSource) {}

  async add(entry: OutboxEntry): Promise<void> {
    await this.db.query(`INSERT INTO event_outbox (name, envelope) VALUES ($1, $2)`, [
      entry.name,
      JSON.stringify(entry.envelope),
    ]);
  }

  async drain(deliver: (entry: OutboxEntry) => Promise<void>, limit = 200): Promise<number> {
    let failure: unknown = null;
    const sent = await this.db.transaction(async (tx) => {
      // One drainer at a time, so the events leave in the order they came (another node's turn
      // comes at its next drain).
      const [lock] = (await tx.query(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [
        OUTBOX_LOCK,
      ])) as { ok: boolean }[];
      if (!lock?.ok) return 0;
      const rows = (await tx.query(
        `SELECT id, name, envelope FROM event_outbox ORDER BY id LIMIT $1 FOR UPDATE`,
        [limit],
      )) as { id: string; name: string; envelope: Envelope | string }[];
      const done: string[] = [];
      try {
        for (const row of rows) {
          const envelope =
            typeof row.envelope === 'string'
              ? (JSON.parse(row.envelope) as Envelope)
              : row.envelope;
          await deliver({ name: row.name, envelope });
          done.push(row.id);
        }
      } catch (err) {
        failure = err;
      }
      // What went out is never sent again (committed even when a later one failed).
      if (done.length) await tx.query(`DELETE FROM event_outbox WHERE id = ANY($1)`, [done]);
      return done.length;
    });
    if (failure && sent === 0) throw failure;
    return sent;
  }

  async count(): Promise<number> {
    const [row] = (await this.db.query(`SELECT count(*)::int AS n FROM event_outbox`)) as {
      n: number;
    }[];
    return row?.n ?? 0;
  }
}
