import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { deleteExpiredIdempotencyKeys } from '../storage/idempotency-keys';
import { everyWithoutOverlap } from '../periodic';

/**
 * Stored answers are kept for the documented 24 hours and no longer: they hold what the service
 * otherwise keeps only hashed or sealed (a created checkout's client secret, a rolled signing
 * secret), and the table would grow for ever. The worker deletes expired keys every `intervalMs`,
 * in batches. Returns a stop that waits for a running sweep.
 */
export function startIdempotencyKeyExpiry(deps: { db: Db; logger: Logger }, intervalMs: number): () => Promise<void> {
  return everyWithoutOverlap(intervalMs, async () => {
    try {
      const deleted = await deleteExpiredIdempotencyKeys(deps.db);
      if (deleted > 0) deps.logger.info({ deleted }, 'expired idempotency keys deleted');
    } catch (error) {
      deps.logger.warn({ err: error }, 'idempotency key expiry failed; will retry');
    }
  });
}
