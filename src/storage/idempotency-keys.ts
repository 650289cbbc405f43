import type { Db } from './db';

/** How long a key is remembered; after that the same key starts a new request. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
/** An in-flight key older than this belongs to a request whose process died; a new request may take it over. */
export const IN_FLIGHT_TAKEOVER_MINUTES = 5;

export interface IdempotencyKeyRow {
  scope: string;
  key: string;
  request_hash: string;
  status: number | null;
  response_body: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * Claims the key for this request: inserts it, or takes over an expired one or one whose owner
 * died in flight. Answers true when this request owns the key and must do the work. The primary
 * key (scope, key) makes two concurrent claims race in the database: exactly one wins.
 */
export async function claimIdempotencyKey(db: Db, scope: string, key: string, requestHash: string): Promise<boolean> {
  const result = await db.raw(
    `INSERT INTO idempotency_keys (scope, key, request_hash) VALUES (?, ?, ?)
     ON CONFLICT (scope, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, status = NULL, response_body = NULL, created_at = now(), completed_at = NULL
       WHERE idempotency_keys.created_at < now() - make_interval(hours => ?)
          OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < now() - make_interval(mins => ?))
     RETURNING key`,
    [scope, key, requestHash, IDEMPOTENCY_KEY_TTL_HOURS, IN_FLIGHT_TAKEOVER_MINUTES],
  );
  return result.rowCount === 1;
}

export async function findIdempotencyKey(db: Db, scope: string, key: string): Promise<IdempotencyKeyRow | undefined> {
  return db<IdempotencyKeyRow>('idempotency_keys').where({ scope, key }).first();
}

/** Stores the first request's answer; later requests with the key replay it. */
export async function completeIdempotencyKey(db: Db, scope: string, key: string, status: number, responseBody: string): Promise<void> {
  await db('idempotency_keys').where({ scope, key }).update({ status, response_body: responseBody, completed_at: db.fn.now() });
}

/** Forgets a key whose answer asked for a retry (a 5xx, a 429), so a retry with it runs again. */
export async function releaseIdempotencyKey(db: Db, scope: string, key: string): Promise<void> {
  await db('idempotency_keys').where({ scope, key }).whereNull('status').delete();
}

/**
 * Housekeeping: forgets keys past their 24 hours (the claim already ignores them), oldest first,
 * `batchSize` rows per statement so a large table is never locked for long, until none is left
 * or `maxBatches` ran. A key a request is taking over right now is skipped, not waited for.
 * Answers how many were deleted.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, options: { batchSize?: number; maxBatches?: number } = {}): Promise<number> {
  const { batchSize = 1000, maxBatches = 100 } = options;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const result = await db.raw(
      `DELETE FROM idempotency_keys WHERE (scope, key) IN (
         SELECT scope, key FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ?)
         ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
      [IDEMPOTENCY_KEY_TTL_HOURS, batchSize],
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < batchSize) break;
  }
  return deleted;
}
