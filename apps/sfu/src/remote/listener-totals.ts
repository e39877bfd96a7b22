/**
 * A station's listener count is the sum over the live SFU nodes. Counts arrive as node events (fast)
 * and in the nodes' registry records (reliable); a record corrects a count unless an event is
 * fresher, so a lost event heals within one refresh and a dead node stops counting.
 */

interface Count {
  n: number;
  /** Local receive time of the last event for this (node, station). */
  eventAt: number;
}

/** An event newer than this wins over the node's registry record (which may predate it). */
const EVENT_WINS_MS = 2000;

export class ListenerTotals {
  /** nodeId -> stationId -> count */
  private readonly counts = new Map<string, Map<string, Count>>();
  /** Totals already reported by {@link changes}. */
  private readonly reported = new Map<string, number>();

  fromEvent(nodeId: string, stationId: string, n: number, now = Date.now()): void {
    this.node(nodeId).set(stationId, { n, eventAt: now });
  }

  /** The node's registry record: its count for every station that has listeners there. */
  fromRecord(nodeId: string, stations: Record<string, number>, now = Date.now()): void {
    const m = this.node(nodeId);
    for (const [stationId, c] of m) {
      if (!(stationId in stations) && now - c.eventAt > EVENT_WINS_MS) m.delete(stationId);
    }
    for (const [stationId, n] of Object.entries(stations)) {
      const c = m.get(stationId);
      if (!c || now - c.eventAt > EVENT_WINS_MS) m.set(stationId, { n, eventAt: c?.eventAt ?? 0 });
    }
  }

  dropNode(nodeId: string): void {
    this.counts.delete(nodeId);
  }

  total(stationId: string): number {
    let n = 0;
    for (const m of this.counts.values()) n += m.get(stationId)?.n ?? 0;
    return n;
  }

  /** Stations whose total changed since the last call, with their new total. */
  changes(): { stationId: string; count: number }[] {
    const totals = new Map<string, number>();
    for (const m of this.counts.values()) {
      for (const [stationId, c] of m) totals.set(stationId, (totals.get(stationId) ?? 0) + c.n);
    }
    const out: { stationId: string; count: number }[] = [];
    for (const stationId of new Set([...totals.keys(), ...this.reported.keys()])) {
      const n = totals.get(stationId) ?? 0;
      if ((this.reported.get(stationId) ?? 0) === n) continue;
      if (n === 0) this.reported.delete(stationId);
      else this.reported.set(stationId, n);
      out.push({ stationId, count: n });
    }
    return out;
  }

  private node(nodeId: string): Map<string, Count> {
    let m = this.counts.get(nodeId);
    if (!m) this.counts.set(nodeId, (m = new Map()));
    return m;
  }
}
