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
   * through; returns how many went. Several nodes may drain at once: each event goes to one.
   */
  drain(deliver: (entry: OutboxEntry) => Promise<void>, limit?: number): Promise<number>;
  count(): Promise<number>;
}

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
    return this.db.transaction(async (tx) => {
      const rows = (await tx.query(
        `SELECT id, name, envelope FROM event_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      )) as { id: string; name: string; envelope: Envelope | string }[];
      const sent: string[] = [];
      try {
        for (const row of rows) {
          const envelope =
            typeof row.envelope === 'string'
              ? (JSON.parse(row.envelope) as Envelope)
              : row.envelope;
          await deliver({ name: row.name, envelope });
          sent.push(row.id);
        }
      } finally {
        // What went out is never sent again from here (receivers drop repeats of a crash anyway).
        if (sent.length) await tx.query(`DELETE FROM event_outbox WHERE id = ANY($1)`, [sent]);
      }
      return sent.length;
    });
  }

  async count(): Promise<number> {
    const [row] = (await this.db.query(`SELECT count(*)::int AS n FROM event_outbox`)) as {
      n: number;
    }[];
    return row?.n ?? 0;
  }
}
