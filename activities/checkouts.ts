import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { commitWithEvents } from './commit';
import type { BlockReason } from '../src/checkouts/admission';
import { expireCheckout, expireDueCheckout } from '../src/checkouts/expiry';
import { restrictCustomer } from '../src/customers/restrictions';
import { recordBlockEvidence } from '../src/decisions/evidence';
import { checkoutEventData } from '../src/domain/event-catalog';
import { recordEvent } from '../src/events/record';
import { findCheckoutByIdUnscoped, updateCheckoutState, type CheckoutRow } from '../src/storage/checkouts';
import type { Db } from '../src/storage/db';
import { findMerchant, type MerchantRow } from '../src/storage/merchants';
import { endCheckoutExpiryWorkflow } from '../src/temporal/checkouts';
import { FAILURE_TYPES, type CheckoutState, type CheckoutWorkflowInput } from '../workflows/contract';

/** The checkout and its merchant; null when the checkout was never recorded. */
export async function loadCheckout(db: Db, checkoutId: string): Promise<{ checkout: CheckoutRow; merchant: MerchantRow } | null> {
  const checkout = await findCheckoutByIdUnscoped(db, checkoutId);
  if (!checkout) return null;
  const merchant = (await findMerchant(db, checkout.merchant_id))!;
  return { checkout, merchant };
}

/** The checkout's own ends besides payment: its expiry, and a block by a customer gate. */
export function createCheckoutActivities(deps: ActivityDeps) {
  return {
    /** Expires an unfinished checkout when its timer fires (src/checkouts/expiry.ts); false if it was no longer open. */
    async expireCheckout(input: { checkoutId: string }): Promise<boolean> {
      return expireCheckout(deps, input.checkoutId);
    },

    /** The expiry workflow's: expires a checkout that is due and that no charge holds (src/checkouts/expiry.ts); false otherwise. */
    async expireDueCheckout(input: { checkoutId: string }): Promise<boolean> {
      return expireDueCheckout(deps, input.checkoutId);
    },

    /** Ends the checkout's expiry workflow, which is left only when checkouts start it (CHECKOUT_WORKFLOW_DELAYED_START). */
    async endCheckoutExpiry(input: CheckoutWorkflowInput & { state: CheckoutState }): Promise<void> {
      if (!deps.config.checkoutDelayedStart) return;
      const { state, ...checkout } = input;
      await endCheckoutExpiryWorkflow(deps.temporal, deps.config.backgroundTaskQueue, checkout, state);
    },

    /**
     * Blocks the checkout for good: state blocked, checkout.terminally_failed (when enabled) and,
     * for a KYC name mismatch, the customer's restriction (customer.restricted), in one commit.
     */
    async blockCheckout(input: { checkoutId: string; reason: BlockReason; restrictWith?: string }): Promise<void> {
      const { checkout, merchant } = (await loadCheckout(deps.db, input.checkoutId))!;
      await commitWithEvents(deps, async (trx) => ({ result: undefined, eventIds: await block(trx, merchant, checkout, input) }));
    },
  };
}

async function block(trx: Db, merchant: MerchantRow, checkout: CheckoutRow, input: { reason: BlockReason; restrictWith?: string }): Promise<string[]> {
  const row = await updateCheckoutState(trx, checkout.id, ['open'], 'blocked', { blocked_reason: input.reason });
  if (!row) {
    // A retry finds its own block done. Expired meanwhile (its timer, or the sweep of late
    // timers): nothing is blocked, and the attempt is refused.
    if ((await findCheckoutByIdUnscoped(trx, checkout.id))?.state === 'blocked') return [];
    throw ApplicationFailure.nonRetryable('the checkout closed before it could be blocked', FAILURE_TYPES.checkoutClosed);
  }
  await recordBlockEvidence(trx, merchant, row, input.reason);
  const ids = input.restrictWith ? await restrictCustomer(trx, merchant, { id: checkout.customer_id }, input.restrictWith) : [];
  const data = checkoutEventData({ checkout: row, customerId: row.customer_id, reason: input.reason });
  const event = await recordEvent(trx, merchant, 'checkout.terminally_failed', data, { checkoutId: row.id, customerId: row.customer_id });
  return event.enabled ? [...ids, event.id] : ids;
}
