// The API's business gauges, read from the database at scrape time: true whichever process wrote
// the rows they count.
import { Gauge, type Registry } from 'prom-client';
import { withinDeadline } from '../deadline';
import type { Db } from '../storage/db';
import { countChargesByStatusAndProcessor, countLiveCheckoutsByState, countPendingOutboxEvents, oldestPendingOutboxSeconds } from '../storage/gauges';

/**
 * How long a scrape waits for the database-derived gauges. While PostgreSQL is down or hung the
 * scrape still answers, with the HTTP metrics (the 503s of the outage) and without those gauges:
 * labelled ones have no samples, the outbox backlog is NaN (unknown, never a reassuring 0).
 */
const DATABASE_READ_DEADLINE_MS = 2000;

/** The read's answer, or null when the database fails or does not answer in time. */
function readWithinDeadline<T>(read: Promise<T>): Promise<T | null> {
  return withinDeadline(read.then((value) => value, () => null), DATABASE_READ_DEADLINE_MS, null);
}

/** Charges by status and processor, the outbox backlog and its age, and live checkouts. */
export function registerBusinessGauges(registry: Registry, db: Db): void {
  new Gauge({
    name: 'payments_charges',
    help: 'Charges by current status and processor (read from the database at scrape time)',
    labelNames: ['status', 'processor'] as const,
    registers: [registry],
    async collect() {
      const rows = await readWithinDeadline(countChargesByStatusAndProcessor(db));
      this.reset();
      for (const row of rows ?? []) this.set({ status: row.status, processor: row.processor }, row.count);
    },
  });
  new Gauge({
    name: 'payments_outbox_backlog',
    help: 'Enabled events recorded but not yet delivered or given up on',
    registers: [registry],
    async collect() {
      const count = await readWithinDeadline(countPendingOutboxEvents(db));
      this.set(count ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'payments_outbox_oldest_pending_seconds',
    help: 'Age of the oldest enabled event not yet delivered or given up on (0 when none): past its retries (minutes), the outbox is stuck',
    registers: [registry],
    async collect() {
      // A backlog count alone cannot tell a busy outbox from one where nothing moves.
      const seconds = await readWithinDeadline(oldestPendingOutboxSeconds(db).then((value) => Math.max(0, value ?? 0)));
      this.set(seconds ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'payments_open_checkouts',
    help: 'Checkouts open and not yet past their expiry, and checkouts in review (the review backlog; expiry pauses in review)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const rows = await readWithinDeadline(countLiveCheckoutsByState(db));
      this.reset();
      if (!rows) return;
      for (const state of ['open', 'in_review']) this.set({ state }, rows.find((r) => r.state === state)?.count ?? 0);
    },
  });
}
