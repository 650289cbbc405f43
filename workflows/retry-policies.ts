import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/**
 * Named activity presets, each from the contract or the nature of the work. Written once here
 * so every workflow uses the same rules.
 */

/** Database work is short; a database outage is waited out (unbounded attempts, capped backoff). */
export const DATABASE: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

/**
 * Processor calls carry the charge id as idempotency key, so retrying a call whose answer was
 * lost is safe and needed: a charge must not stay in limbo because one response went missing.
 */
export const PROCESSOR: ActivityOptions = {
  // Long enough for a slow processor, short enough that a crashed worker's call is retried soon.
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * The same rules for the attempt's idempotent steps run as a local activity, inside the workflow
 * task that accepts the update: no activity task round trip through the server. A crashed
 * worker's local activity is run again by the next worker, which every step of it allows.
 */
export const PROCESSOR_LOCAL: LocalActivityOptions = {
  startToCloseTimeout: PROCESSOR.startToCloseTimeout,
  retry: PROCESSOR.retry,
};

/**
 * Database work run as a local activity, in the workflow task its timer or signal woke: the same
 * rules as DATABASE without the activity task's two extra trips through the server. For steps
 * that are one short transaction and safe to run again (a crashed worker's is).
 */
export const DATABASE_LOCAL: LocalActivityOptions = {
  startToCloseTimeout: DATABASE.startToCloseTimeout,
  retry: DATABASE.retry,
};

/**
 * Housekeeping whose loss costs only tidiness (ending an expiry workflow that ends at its deadline
 * anyway): a few tries, then the workflow goes on without it.
 */
export const HOUSEKEEPING: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};

/**
 * The hold handshake: one synchronous call with a 10 s timeout (inside the activity), never
 * retried, because the contract reads any non-2xx or no answer as "insufficient funds".
 */
export const HOLD: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
};

/**
 * Webhook delivery: 10 s per attempt (inside the activity), at most 5 attempts in all, each delay
 * double the last. `attemptsMade` attempts were made before the workflow (the first, by the
 * committing process): the activity makes the rest, continuing the same doubling.
 */
export const DELIVERY_MAX_ATTEMPTS = 5;
export function delivery(initialIntervalMs: number, attemptsMade = 0): ActivityOptions {
  return {
    startToCloseTimeout: '15 seconds',
    retry: {
      maximumAttempts: DELIVERY_MAX_ATTEMPTS - attemptsMade,
      initialInterval: initialIntervalMs * 2 ** attemptsMade,
      backoffCoefficient: 2,
      maximumInterval: '10 minutes',
    },
  };
}
