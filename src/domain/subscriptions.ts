// The subscription resource as merchants see it: in the checkout response, in every webhook's
// `data.subscription`, and in the admin API. Fields are picked one by one, so a column added to
// the table never leaks out.
import type { SubscriptionInterval } from './subscription-calendar';

/**
 * `incomplete`: the checkout has not been paid yet (no subscription exists, `id` is null).
 * `active`: paid up. `past_due`: a renewal failed and is being retried on the merchant's
 * schedule. `cancelled`: final; cancelled by the merchant, at period end, or after the last
 * retry failed (`cancellation_reason` says which). A cancelled subscription never charges again.
 */
export const SUBSCRIPTION_STATUSES = ['incomplete', 'active', 'past_due', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export type StoredSubscriptionStatus = Exclude<SubscriptionStatus, 'incomplete'>;

export const CANCELLATION_REASONS = ['requested', 'payment_failed'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

/** The dunning schedule when a merchant has not set one: retries 1, 3 and 5 days after the due date. */
export const DEFAULT_RETRY_DAYS: readonly number[] = Object.freeze([1, 3, 5]);

// A type alias, not an interface, so it stays assignable to the event builders' plain records.
export type SubscriptionView = {
  id: string | null;
  status: SubscriptionStatus;
  interval: SubscriptionInterval;
  interval_count: number;
  amount_cents: number;
  current_period_start: string | null;
  current_period_end: string | null;
  next_charge_at: string | null;
  cancel_at_period_end: boolean;
  cancelled_at: string | null;
  cancellation_reason: CancellationReason | null;
  failed_attempts: number;
};

/** What presentSubscription reads; the storage row satisfies it. */
export interface SubscriptionFacts {
  id: string;
  status: StoredSubscriptionStatus;
  interval: SubscriptionInterval;
  interval_count: number;
  amount_cents: number;
  current_period_start: Date;
  current_period_end: Date;
  next_charge_at: Date | null;
  cancel_at_period_end: boolean;
  cancelled_at: Date | null;
  cancellation_reason: CancellationReason | null;
  failed_attempts: number;
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

export function presentSubscription(row: SubscriptionFacts): SubscriptionView {
  return {
    id: row.id,
    status: row.status,
    interval: row.interval,
    interval_count: row.interval_count,
    amount_cents: row.amount_cents,
    current_period_start: iso(row.current_period_start),
    current_period_end: iso(row.current_period_end),
    next_charge_at: iso(row.next_charge_at),
    cancel_at_period_end: row.cancel_at_period_end,
    cancelled_at: iso(row.cancelled_at),
    cancellation_reason: row.cancellation_reason,
    failed_attempts: row.failed_attempts,
  };
}

/** Before the first charge succeeds: what the checkout will create, with no id and no period yet. */
export function incompleteSubscription(terms: { interval: SubscriptionInterval; interval_count: number }, amountCents: number): SubscriptionView {
  return {
    id: null,
    status: 'incomplete',
    interval: terms.interval,
    interval_count: terms.interval_count,
    amount_cents: amountCents,
    current_period_start: null,
    current_period_end: null,
    next_charge_at: null,
    cancel_at_period_end: false,
    cancelled_at: null,
    cancellation_reason: null,
    failed_attempts: 0,
  };
}

/** The subscription's own clock: real time, plus the sandbox test clock's offset (always 0 in production). */
export function subscriptionNow(clockOffsetMs: number, realNowMs: number = Date.now()): Date {
  return new Date(realNowMs + clockOffsetMs);
}
