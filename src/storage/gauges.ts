import type { Db } from './db';

/**
 * Counts behind the API's business gauges, read at scrape time. An event counts as pending while
 * it is enabled, in the outbox and neither delivered nor given up on.
 */
const PENDING_OUTBOX = { enabled: true, channel: 'outbox', delivery_status: 'pending' } as const;

export async function countChargesByStatusAndProcessor(db: Db): Promise<Array<{ status: string; processor: string; count: number }>> {
  const rows = (await db('charges').select('status', 'processor').count('* as count').groupBy('status', 'processor')) as Array<{ status: string; processor: string; count: string }>;
  return rows.map((row) => ({ status: row.status, processor: row.processor, count: Number(row.count) }));
}

export async function countPendingOutboxEvents(db: Db): Promise<number> {
  const rows = await db('events').where(PENDING_OUTBOX).count('* as count');
  return Number((rows[0] as { count: string }).count);
}

/** Seconds since the oldest pending event was recorded; null when none is pending. */
export async function oldestPendingOutboxSeconds(db: Db): Promise<number | null> {
  const rows = (await db('events').where(PENDING_OUTBOX).select(db.raw('extract(epoch from now() - min(created_at))::float8 as seconds'))) as Array<{ seconds: number | null }>;
  return rows[0]?.seconds ?? null;
}

/**
 * Checkouts open and not past their expiry, and checkouts in review, by state. A checkout in review
 * keeps the deadline it had when its review began, but its expiry is paused until the decision: a
 * review pending past it is backlog, not a checkout to drop.
 */
export async function countLiveCheckoutsByState(db: Db): Promise<Array<{ state: string; count: number }>> {
  const rows = (await db('checkouts')
    .where((open) => open.where('state', 'open').andWhere('expires_at', '>', db.fn.now()))
    .orWhere('state', 'in_review')
    .select('state')
    .count('* as count')
    .groupBy('state')) as Array<{ state: string; count: string }>;
  return rows.map((row) => ({ state: row.state, count: Number(row.count) }));
}
