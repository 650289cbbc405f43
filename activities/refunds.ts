import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { newId } from '../src/domain/ids';
import { applyChargeMove } from '../src/charges/moves';
import { deliverAfterCommit } from '../src/events/first-delivery';
import { findChargeByIdUnscoped, lockChargeUnscoped } from '../src/storage/charges';
import { findPaymentMethod } from '../src/storage/payment-methods';
import { chargeMoves } from './charges';
import { deletePendingRefund, findRefundOfChargeUnscoped, insertPendingRefund, markRefundSucceeded, setRefundRequester } from '../src/storage/refunds';
import { FAILURE_TYPES, type RefundRequester, type RefundWorkflowInput } from '../workflows/contract';
import { recordAudit } from '../src/identity/audit';
import { claimForRequest } from './request-fence';
import type { ChargeRow } from '../src/storage/charges';
import { refundRefusal } from '../src/charges/refund-rules';
import type { Db } from '../src/storage/db';

/** A refund: the processor's, then its record. */
export function createRefundActivities(deps: ActivityDeps) {
  const { db } = deps;
  const { processorFor } = chargeMoves(deps);
  return {
    /**
     * Claims the charge, then asks the processor to refund the full amount: refusals are final
     * (and withdraw the claim), lost answers are retried with the charge id as idempotency key.
     * A refund the processor made on its own (source `processor`) is only recorded.
     */
    async refundAtProcessor(input: { chargeId: string; source?: RefundWorkflowInput['source']; fenceId?: string }): Promise<{ processorRefundId: string }> {
      const charge = await claim(db, input.chargeId, input.source ?? 'api', input.fenceId);
      if (input.source === 'processor') return { processorRefundId: `${charge.processor}_refund_${charge.id}` };
      const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
      const outcome = await (await processorFor(charge)).refund({
        processor_charge_id: charge.processor_charge_id ?? charge.id,
        amount_cents: charge.amount_cents,
        token: pm.processor_token,
        idempotency_key: charge.id,
      });
      if (!outcome.ok) {
        await deletePendingRefund(db, charge.id);
        throw ApplicationFailure.create({ message: outcome.responsetext, type: FAILURE_TYPES.refundDeclined, nonRetryable: true, details: [outcome.responsetext] });
      }
      return { processorRefundId: outcome.processor_refund_id };
    },

    /**
     * The refund row, the move succeeded -> refunded (checkout.refunded when enabled) and, for a
     * dashboard refund, who asked (the row's requested_by and the audit entry) in one commit.
     */
    async recordRefund(input: { chargeId: string; processorRefundId: string; source: string; requester?: RefundRequester }): Promise<void> {
      const eventIds = await db.transaction(async (trx) => {
        const charge = (await findChargeByIdUnscoped(trx, input.chargeId))!;
        // A refund recorded before claims existed (replayed workflows) has no pending row yet.
        if (!(await findRefundOfChargeUnscoped(trx, charge.id))) {
          await insertPendingRefund(trx, { id: newId('refund'), charge_id: charge.id, merchant_id: charge.merchant_id, amount_cents: charge.amount_cents, source: input.source });
        }
        await markRefundSucceeded(trx, charge.id, input.processorRefundId);
        if (input.requester) await recordRequester(trx, charge, input.requester);
        return (await applyChargeMove(trx, { chargeId: charge.id, from: 'succeeded', to: 'refunded' })).eventIds;
      });
      deliverAfterCommit(deps, eventIds);
    },
  };
}

/**
 * Claims the charge for this refund in one transaction that checks the refund rules on the
 * locked row: a pending refund row, which every other move away from `succeeded` respects
 * (applyChargeMove refuses them), so a refund and a reversal cannot both win. A retry of the
 * same refund finds its own claim. The request that asked for the refund is claimed with it
 * (`fenceId`), before the processor is called: one that answered 503 first refunds nothing.
 */
async function claim(db: Db, chargeId: string, source: string, fenceId: string | undefined) {
  return db.transaction(async (trx) => {
    const charge = await lockChargeUnscoped(trx, chargeId);
    if (!charge) throw ApplicationFailure.nonRetryable('charge not found', FAILURE_TYPES.chargeNotRefundable);
    await claimForRequest(trx, fenceId);
    const existing = await findRefundOfChargeUnscoped(trx, chargeId);
    if (existing?.status === 'pending') return charge;
    const pm = (await findPaymentMethod(trx, charge.merchant_id, charge.payment_method_id))!;
    const refusal = refundRefusal(charge, pm.payment_type);
    if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
    await insertPendingRefund(trx, { id: newId('refund'), charge_id: charge.id, merchant_id: charge.merchant_id, amount_cents: charge.amount_cents, source });
    return charge;
  });
}

/** A dashboard refund's person, recorded with the refund (a retried activity rolls back with it, so once). */
async function recordRequester(trx: Db, charge: ChargeRow, requester: RefundRequester): Promise<void> {
  if (requester.email !== null) await setRefundRequester(trx, charge.merchant_id, charge.id, requester.email);
  await recordAudit(trx, { merchantId: charge.merchant_id, actor: requester.actor, action: 'charge.refunded', target: charge.id, details: { amount_cents: charge.amount_cents, checkout_id: charge.checkout_id } });
}
