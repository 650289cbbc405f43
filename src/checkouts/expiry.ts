import { expiredEventData } from '../domain/event-catalog';
import { recordEvents } from '../events/record';
import { deliverAfterCommit, type FirstDeliveryDeps, type RecordedEvents } from '../events/first-delivery';
import { recordCheckoutsExpired } from '../observability/metrics';
import { expireOverdueCheckoutsUnscoped, updateCheckoutState, type CheckoutRow } from '../storage/checkouts';
import type { Db } from '../storage/db';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { everyWithoutOverlap } from '../periodic';

/**
 * Expiry has several writers and one rule. A checkout nobody has tried has no checkout workflow
 * yet, only its expiry workflow: a start delayed until the deadline (a durable timer kept by
 * Temporal), run as background work, which expires it (`expireDueCheckout`). A checkout that was
 * tried has its checkout workflow, which holds a durable timer of its own and, when it fires,
 * expires the checkout (`expireCheckout`, a local activity). Under a burst of deadlines the worker
 * can fall behind its timers, so each worker also sweeps for checkouts whose deadline passed more
 * than a grace period ago (`startExpirySweeper`) and expires them in batches. All are
 * compare-and-sets from `open` that record `checkout.expired` in the same commit, so whichever
 * comes first expires the checkout and the others find it no longer open. Only the checkout
 * workflow takes a checkout a charge in progress still holds: that one is its to finish.
 */

/** How many overdue checkouts one sweep transaction expires; a full batch is followed by another at once. */
const SWEEP_BATCH = 200;

/** Records checkout.expired for checkouts this transaction just expired: per merchant, one read and one INSERT. */
async function recordExpiries(trx: Db, rows: CheckoutRow[]): Promise<RecordedEvents[]> {
  const byMerchant = new Map<string, CheckoutRow[]>();
  for (const row of rows) {
    const group = byMerchant.get(row.merchant_id);
    if (group) group.push(row);
    else byMerchant.set(row.merchant_id, [row]);
  }
  const recorded: RecordedEvents[] = [];
  for (const [merchantId, expired] of byMerchant) {
    const merchant: MerchantRow = (await findMerchant(trx, merchantId))!;
    const events = await recordEvents(
      trx,
      merchant,
      expired.map((row) => ({
        type: 'checkout.expired' as const,
        data: expiredEventData({ checkout: row, customerId: row.customer_id, expiredAt: row.expires_at }),
        refs: { checkoutId: row.id, customerId: row.customer_id },
      })),
    );
    recorded.push({ merchant, events: events.filter((event) => event.enabled) });
  }
  return recorded;
}

/** Starts each recorded event's first delivery, after the commit, from the rows it wrote. */
function deliverExpiries(deps: FirstDeliveryDeps, recorded: RecordedEvents[]): void {
  for (const group of recorded) deliverAfterCommit(deps, group.events.map((e) => e.id), group);
}

/**
 * The workflow's expiry: expires an unfinished checkout and records checkout.expired; false if it
 * was no longer open (the sweep came first, a charge completed it, or its row never landed). The
 * compare-and-set is the first statement, so no read precedes it.
 */
export async function expireCheckout(deps: FirstDeliveryDeps, checkoutId: string): Promise<boolean> {
  return expireOne(deps, async (trx) => {
    const row = await updateCheckoutState(trx, checkoutId, ['open'], 'expired');
    return row ? [row] : [];
  });
}

/** One timer's expiry: the rows `expire` expired (none or one), their events in the same commit, then their first deliveries. */
async function expireOne(deps: FirstDeliveryDeps, expire: (trx: Db) => Promise<CheckoutRow[]>): Promise<boolean> {
  const recorded = await deps.db.transaction(async (trx) => {
    const rows = await expire(trx);
    return rows.length > 0 ? recordExpiries(trx, rows) : null;
  });
  if (!recorded) return false;
  recordCheckoutsExpired('timer', 1);
  deliverExpiries(deps, recorded);
  return true;
}

/**
 * The expiry workflow's expiry of a checkout nobody had tried when it was started: the sweep's rule
 * for one checkout, with no grace (open, past its deadline, no charge in progress). False when it
 * was not expired here: no longer open, a charge holds it (its checkout workflow ends it), or its
 * row is locked by an attempt being admitted (the sweep takes it if it is still due).
 */
export function expireDueCheckout(deps: FirstDeliveryDeps, checkoutId: string): Promise<boolean> {
  return expireOne(deps, (trx) => expireOverdueCheckoutsUnscoped(trx, 0, 1, checkoutId));
}

/** One sweep: expires overdue checkouts in batches until none is left; answers how many it expired. */
export async function sweepOverdueCheckouts(deps: FirstDeliveryDeps, graceMs: number, batch = SWEEP_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const { count, recorded } = await deps.db.transaction(async (trx) => {
      const rows = await expireOverdueCheckoutsUnscoped(trx, graceMs, batch);
      return { count: rows.length, recorded: await recordExpiries(trx, rows) };
    });
    total += count;
    if (count > 0) {
      recordCheckoutsExpired('sweep', count);
      deliverExpiries(deps, recorded);
    }
    if (count < batch) return total;
  }
}

/**
 * Sweeps every `intervalMs` for checkouts whose expiry timer is more than `graceMs` late. Several
 * workers may sweep at once: each skips the rows another holds.
 */
export function startExpirySweeper(deps: FirstDeliveryDeps, options: { intervalMs: number; graceMs: number }): () => Promise<void> {
  return everyWithoutOverlap(options.intervalMs, async () => {
    try {
      const expired = await sweepOverdueCheckouts(deps, options.graceMs);
      if (expired > 0) deps.logger.info({ count: expired }, 'expired checkouts whose timer was late');
    } catch (error) {
      deps.logger.warn({ err: error }, 'expiry sweep failed; will retry');
    }
  });
}
