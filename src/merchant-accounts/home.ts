import type { AppDeps } from '../app-deps';
import { sumSucceededChargesSince } from '../storage/charges';
import { listAttempts, listFailedDeliveries } from '../storage/events';

/** Failed deliveries the home page lists: the newest few; the event log has the rest. */
export const HOME_FAILED_DELIVERIES = 10;
/** The contract's account currency: every charge is in it. */
const ACCOUNT_CURRENCY = 'USD';

const startOfUtcDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/**
 * The home page of the merchant dashboard: today's (UTC) succeeded volume, deposits (credit) and
 * withdrawals (debit) apart, and the newest events whose delivery failed, each with its last attempt.
 */
export async function merchantHome(deps: AppDeps, merchantId: string, now = new Date()) {
  const day = startOfUtcDay(now);
  const sums = await sumSucceededChargesSince(deps.db, merchantId, day);
  const volume = (type: 'credit' | 'debit') => {
    const found = sums.find((s) => s.transaction_type === type);
    return { count: found?.count ?? 0, amount_cents: found?.amount_cents ?? 0 };
  };
  const failed = await listFailedDeliveries(deps.db, merchantId, HOME_FAILED_DELIVERIES);
  const attempts = await listAttempts(deps.db, failed.map((e) => e.id));
  return {
    day: day.toISOString().slice(0, 10),
    currency: ACCOUNT_CURRENCY,
    deposits: volume('credit'),
    withdrawals: volume('debit'),
    failed_deliveries: failed.map((event) => {
      const last = attempts.filter((a) => a.event_id === event.id).at(-1);
      return {
        event_id: event.id,
        type: event.type,
        checkout_id: event.checkout_id,
        created_at: event.created_at.toISOString(),
        attempts: event.delivery_attempts,
        last_attempt: last ? { at: last.started_at.toISOString(), http_status: last.http_status, error: last.error } : null,
      };
    }),
  };
}
