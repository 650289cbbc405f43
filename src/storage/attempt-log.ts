import type { Db } from './db';

/** Velocity windows are one hour long. */
export const VELOCITY_WINDOW_SECONDS = 3600;

export interface AttemptLogEntry {
  merchant_id: string;
  checkout_id: string;
  fingerprint: string;
  client_ip: string | null;
}

export interface VelocityLimits {
  card_attempts_per_hour: number;
  ip_attempts_per_hour: number;
}

export type VelocityRefusal = { limit: 'card' | 'ip'; retryAfterSeconds: number };

/**
 * Logs one payment attempt of the merchant and checks that neither its card (fingerprint) nor its
 * client IP went over its hourly limit, counting only attempts logged before this one. Run it in
 * a transaction: it first takes transaction-scoped locks on the card and the IP, so concurrent
 * attempts of one card or IP are counted one after the other and of N exactly the first ones
 * within the limit pass, although each line commits only with the transaction. A refused attempt
 * is removed from the log, so refusals do not extend the block.
 */
export async function logAttempt(db: Db, entry: AttemptLogEntry, limits: VelocityLimits): Promise<VelocityRefusal | null> {
  // Always in the same order (by lock key), so two attempts never wait for each other's second lock.
  const keys = [`${entry.merchant_id}:card:${entry.fingerprint}`, ...(entry.client_ip === null ? [] : [`${entry.merchant_id}:ip:${entry.client_ip}`])];
  await db.raw('SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(key, 0) AS k FROM unnest(?::text[]) AS key ORDER BY k) AS locks', [keys]);
  const [row] = await db('attempt_log').insert(entry).returning(['id']);
  const checks = [
    { limit: 'card' as const, column: 'fingerprint', value: entry.fingerprint, max: limits.card_attempts_per_hour },
    { limit: 'ip' as const, column: 'client_ip', value: entry.client_ip, max: limits.ip_attempts_per_hour },
  ];
  for (const check of checks) {
    if (check.value === null) continue;
    const result = await db.raw(
      `SELECT count(*)::int AS n, extract(epoch FROM (min(created_at) + make_interval(secs => ?) - now()))::float AS retry
         FROM attempt_log
        WHERE merchant_id = ? AND ${check.column} = ? AND id <= ? AND created_at > now() - make_interval(secs => ?)`,
      [VELOCITY_WINDOW_SECONDS, entry.merchant_id, check.value, row.id, VELOCITY_WINDOW_SECONDS],
    );
    const { n, retry } = result.rows[0] as { n: number; retry: number };
    if (n > check.max) {
      await db('attempt_log').where({ id: row.id }).delete();
      return { limit: check.limit, retryAfterSeconds: Math.max(1, Math.ceil(retry)) };
    }
  }
  return null;
}
