import type { Db } from './db';

/** The merchant's money by UTC day, for the dashboard's home page: what was taken, and what went back. */

export interface DaySum {
  /** YYYY-MM-DD (UTC). */
  day: string;
  amount_cents: number;
  count: number;
}

const byDay = (rows: Array<{ day: string; amount_cents: string | number | null; count: string | number }>): DaySum[] =>
  rows.map((row) => ({ day: row.day, amount_cents: Number(row.amount_cents ?? 0), count: Number(row.count) }));

/** Deposits taken (credit charges that succeeded, refunded ones included: they were taken first), by the day they were created. */
export async function sumDepositsTakenByDay(db: Db, merchantId: string, since: Date): Promise<DaySum[]> {
  return byDay(await db('charges')
    .where({ merchant_id: merchantId, transaction_type: 'credit' })
    .whereIn('status', ['succeeded', 'refunded'])
    .where('created_at', '>=', since)
    .select(db.raw("to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day"))
    .sum({ amount_cents: 'amount_cents' })
    .count({ count: '*' })
    .groupBy('day'));
}

/** Refunds that went through, by the day they were made. */
export async function sumRefundsByDay(db: Db, merchantId: string, since: Date): Promise<DaySum[]> {
  return byDay(await db('refunds')
    .where({ merchant_id: merchantId, status: 'succeeded' })
    .where('created_at', '>=', since)
    .select(db.raw("to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day"))
    .sum({ amount_cents: 'amount_cents' })
    .count({ count: '*' })
    .groupBy('day'));
}

/** The merchant's reviews awaiting a decision: how many, their sum, and when the oldest was opened. */
export async function summarizeOpenReviews(db: Db, merchantId: string): Promise<{ count: number; amount_cents: number; oldest_at: Date | null }> {
  const row = await db('reviews').where({ merchant_id: merchantId, status: 'pending' }).count({ count: '*' }).sum({ amount_cents: 'amount_cents' }).min({ oldest_at: 'created_at' }).first();
  return { count: Number(row?.count ?? 0), amount_cents: Number(row?.amount_cents ?? 0), oldest_at: row?.oldest_at ? new Date(row.oldest_at) : null };
}
