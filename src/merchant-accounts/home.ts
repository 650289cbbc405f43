import type { AppDeps } from '../app-deps';
import { sumSucceededChargesSince } from '../storage/charges';
import { listAttempts, listFailedDeliveries } from '../storage/events';
import { sumDepositsTakenByDay, sumRefundsByDay, summarizeOpenReviews, type DaySum } from '../storage/home-figures';

/** Failed deliveries the home page lists: the newest few; the event log has the rest. */
export const HOME_FAILED_DELIVERIES = 10;
/** The contract's account currency: every charge is in it. */
const ACCOUNT_CURRENCY = 'USD';

/** The periods the home page sums, each ending today (UTC) and counting whole days. */
export const HOME_PERIODS = [{ period: 'today', days: 1 }, { period: 'last_7_days', days: 7 }, { period: 'last_30_days', days: 30 }] as const;
/** The volume chart's days, today the last. */
export const HOME_CHART_DAYS = 30;
const DAY_MS = 86_400_000;

const startOfUtcDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Gross (deposits taken, refunded ones included), refunds (made in the period) and net for each
 * period, and the chart's daily gross and refunds: a deposit taken and refunded today is gross
 * $25, refunds $25, net $0.
 */
async function moneyFigures(deps: AppDeps, merchantId: string, today: Date) {
  const since = new Date(today.getTime() - (HOME_CHART_DAYS - 1) * DAY_MS);
  const [taken, refunded] = await Promise.all([sumDepositsTakenByDay(deps.db, merchantId, since), sumRefundsByDay(deps.db, merchantId, since)]);
  const days = Array.from({ length: HOME_CHART_DAYS }, (_, i) => dayOf(new Date(since.getTime() + i * DAY_MS)));
  const on = (sums: DaySum[], day: string) => sums.find((s) => s.day === day) ?? { amount_cents: 0, count: 0 };
  const total = (sums: DaySum[], from: string) => sums.filter((s) => s.day >= from).reduce((sum, s) => ({ amount_cents: sum.amount_cents + s.amount_cents, count: sum.count + s.count }), { amount_cents: 0, count: 0 });
  const periods = HOME_PERIODS.map(({ period, days: length }) => {
    const from = dayOf(new Date(today.getTime() - (length - 1) * DAY_MS));
    const gross = total(taken, from);
    const refunds = total(refunded, from);
    return { period, from, gross_cents: gross.amount_cents, refunds_cents: refunds.amount_cents, net_cents: gross.amount_cents - refunds.amount_cents, payments: gross.count, refunds: refunds.count };
  });
  const chart = { days, gross_cents: days.map((day) => on(taken, day).amount_cents), refunds_cents: days.map((day) => on(refunded, day).amount_cents) };
  return { periods, chart };
}

/**
 * The home page of the merchant dashboard: today's (UTC) succeeded volume, deposits (credit) and
 * withdrawals (debit) apart; gross, refunds and net for today and the last 7 and 30 days with the
 * chart's days; the open reviews; and the newest events whose delivery failed, each with its last
 * attempt and the receiver's answer.
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
  const [figures, reviews] = await Promise.all([moneyFigures(deps, merchantId, day), summarizeOpenReviews(deps.db, merchantId)]);
  return {
    day: day.toISOString().slice(0, 10),
    currency: ACCOUNT_CURRENCY,
    deposits: volume('credit'),
    withdrawals: volume('debit'),
    ...figures,
    open_reviews: { count: reviews.count, amount_cents: reviews.amount_cents, oldest_at: reviews.oldest_at?.toISOString() ?? null },
    failed_deliveries: failed.map((event) => {
      const last = attempts.filter((a) => a.event_id === event.id).at(-1);
      return {
        event_id: event.id,
        type: event.type,
        checkout_id: event.checkout_id,
        created_at: event.created_at.toISOString(),
        attempts: event.delivery_attempts,
        last_attempt: last ? { at: last.started_at.toISOString(), http_status: last.http_status, error: last.error, response_excerpt: last.response_excerpt, url: last.url } : null,
      };
    }),
  };
}
