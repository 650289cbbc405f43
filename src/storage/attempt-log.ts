import type { Db } from './db';

/** Velocity windows are one hour long. */
export const VELOCITY_WINDOW_SECONDS = 3600;

export interface AttemptLogEntry {
  merchant_id: string;
  checkout_id: string;
  customer_id: string;
  /** The instrument as saved methods know it (a card's number and expiry); kept for the record. */
  fingerprint: string;
  /** What the card limit counts: a card's number alone (see numberKey in src/processors/instruments.ts). */
  number_key: string;
  client_ip: string | null;
}

export interface VelocityLimits {
  card_attempts_per_hour: number;
  ip_attempts_per_hour: number;
  /** null: the customer's attempts are not counted. */
  customer_attempts_per_hour: number | null;
}

export type VelocityLimit = 'card' | 'ip' | 'customer';
export type VelocityRefusal = { limit: VelocityLimit; retryAfterSeconds: number };

/** Each limit, the attempt-log column it counts and the entry's value for it (null: not counted). */
function velocityChecks(entry: AttemptLogEntry, limits: VelocityLimits) {
  return [
    { limit: 'card' as const, column: 'number_key', value: entry.number_key as string | null, max: limits.card_attempts_per_hour },
    { limit: 'ip' as const, column: 'client_ip', value: entry.client_ip, max: limits.ip_attempts_per_hour },
    { limit: 'customer' as const, column: 'customer_id', value: limits.customer_attempts_per_hour === null ? null : entry.customer_id, max: limits.customer_attempts_per_hour ?? 0 },
  ].filter((check) => check.value !== null);
}

/**
 * Logs one payment attempt of the merchant and checks that neither its card number, its client IP
 * nor (when limited) its customer went over its hourly limit, counting only attempts logged before
 * this one. Run it in a transaction: it first takes transaction-scoped locks on each counted key,
 * so concurrent attempts of one card, IP or customer are counted one after the other and of N
 * exactly the first ones within the limit pass, although each line commits only with the
 * transaction. A refused attempt is removed from the log, so refusals do not extend the block.
 */
export async function logAttempt(db: Db, entry: AttemptLogEntry, limits: VelocityLimits): Promise<VelocityRefusal | null> {
  const checks = velocityChecks(entry, limits);
  // Always in the same order (by lock key), so two attempts never wait for each other's second lock.
  const keys = checks.map((check) => `${entry.merchant_id}:${check.limit}:${check.value}`);
  await db.raw('SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(key, 0) AS k FROM unnest(?::text[]) AS key ORDER BY k) AS locks', [keys]);
  const [row] = await db('attempt_log').insert(entry).returning(['id']);
  for (const check of checks) {
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
