import type { ActivityOptions } from '@temporalio/workflow';

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
 * The hold handshake: one synchronous call with a 10 s timeout (inside the activity), never
 * retried, because the contract reads any non-2xx or no answer as "insufficient funds".
 */
export const HOLD: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
};

/** Webhook delivery: 10 s per attempt (inside the activity), at most 5 attempts in all. */
export const DELIVERY_MAX_ATTEMPTS = 5;
export function delivery(initialIntervalMs: number): ActivityOptions {
  return {
    startToCloseTimeout: '15 seconds',
    retry: { maximumAttempts: DELIVERY_MAX_ATTEMPTS, initialInterval: initialIntervalMs, backoffCoefficient: 2, maximumInterval: '10 minutes' },
  };
}
