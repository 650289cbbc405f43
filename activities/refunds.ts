import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { newId } from '../src/domain/ids';
import { applyChargeMove } from '../src/charges/moves';
import { dispatchEvents } from '../src/events/dispatch';
import { getProcessor, type ProcessorName } from '../src/processors';
import { findChargeById } from '../src/storage/charges';
import { findPaymentMethod } from '../src/storage/payment-methods';
import { FAILURE_TYPES } from '../workflows/definitions';
import { refundRefusal } from '../src/charges/refund-rules';

export function createRefundActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /** Asks the processor to refund the full amount; refusals are final, lost answers are retried. */
    async refundAtProcessor(input: { chargeId: string }): Promise<{ processorRefundId: string }> {
      const charge = await findChargeById(db, input.chargeId);
      if (!charge) throw ApplicationFailure.nonRetryable('charge not found', FAILURE_TYPES.chargeNotRefundable);
      const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
      const refusal = refundRefusal(charge, pm.payment_type);
      if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
      const outcome = await getProcessor(charge.processor as ProcessorName).refund({
        processor_charge_id: charge.processor_charge_id ?? charge.id,
        amount_cents: charge.amount_cents,
        token: pm.processor_token,
        idempotency_key: charge.id,
      });
      if (!outcome.ok) {
        throw ApplicationFailure.create({ message: outcome.responsetext, type: FAILURE_TYPES.refundDeclined, nonRetryable: true, details: [outcome.responsetext] });
      }
      return { processorRefundId: outcome.processor_refund_id };
    },

    /** The refund row and the move succeeded -> refunded (checkout.refunded when enabled), together. */
    async recordRefund(input: { chargeId: string; processorRefundId: string; source: string }): Promise<void> {
      const charge = (await findChargeById(db, input.chargeId))!;
      await db('refunds')
        .insert({ id: newId('refund'), charge_id: charge.id, merchant_id: charge.merchant_id, amount_cents: charge.amount_cents, processor_refund_id: input.processorRefundId, source: input.source })
        .onConflict('charge_id')
        .ignore();
      const result = await applyChargeMove(db, { chargeId: charge.id, from: 'succeeded', to: 'refunded' });
      await dispatchEvents(deps, result.eventIds);
    },
  };
}
