import { ApplicationFailure } from '@temporalio/activity';
import { newId } from '../src/domain/ids';
import { insertChargeWhileLive, type ChargeRow } from '../src/storage/charges';
import type { CheckoutRow } from '../src/storage/checkouts';
import type { Db } from '../src/storage/db';
import type { MerchantRow } from '../src/storage/merchants';
import type { PaymentMethodRow } from '../src/storage/payment-methods';
import { spendReview } from '../src/storage/reviews';
import { FAILURE_TYPES } from '../workflows/contract';

export type AttemptCharge = { attemptKey: string; amountCents: number; reviewId?: string };
/** The attempt's charge; `inserted` is false when an earlier try of the same attempt had made it. */
export type AttemptChargeRow = { charge: ChargeRow; inserted: boolean };

/**
 * Creates the attempt's charge at `created`; the attempt id makes a retry find the same charge.
 * A reviewed attempt's charge spends the approval in the same commit: an approval authorizes
 * exactly one charge, never a later attempt. Used by the attempt's own activities and by the
 * approval, which creates its charge in its own commit (recordReviewDecision).
 */
export async function insertAttemptCharge(
  db: Db,
  { checkout, merchant, pm }: { checkout: CheckoutRow; merchant: MerchantRow; pm: PaymentMethodRow },
  input: AttemptCharge,
): Promise<AttemptChargeRow> {
  // A reviewed attempt's insert and the approval it spends commit together; any other is one statement.
  const insert = async (trx: Db) => {
    // A retry finds its own charge; a new charge needs the checkout still open and unexpired
    // by the database's clock (an attempt admitted just before the deadline may run after it),
    // and a wallet attempt's needs its admission still held (not given up by a 503).
    const made = await insertChargeWhileLive(trx, {
      id: newId('charge'),
      merchant_id: checkout.merchant_id,
      checkout_id: checkout.id,
      customer_id: checkout.customer_id,
      payment_method_id: pm.id,
      attempt_key: input.attemptKey,
      amount_cents: input.amountCents,
      currency: checkout.currency,
      transaction_type: checkout.type === 'deposit' ? 'credit' : 'debit',
      processor: merchant.settings.card_processor,
    }, { slotHeld: input.reviewId === undefined });
    if (!made) throw ApplicationFailure.nonRetryable('the checkout closed before the charge could be created', FAILURE_TYPES.checkoutClosed);
    if (input.reviewId && !(await spendReview(trx, input.reviewId, made.charge.id))) {
      throw ApplicationFailure.nonRetryable('the approval was already spent by another charge', FAILURE_TYPES.reviewSpent);
    }
    return made;
  };
  return input.reviewId ? db.transaction(insert) : insert(db);
}
