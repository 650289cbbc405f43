import type { ActivityDeps } from './deps';
import { chargeMoves, outcomeChanges, TO_STATUS } from './charges';
import { createHoldActivities } from './holds';
import { applyChargeMove, type MoveResult } from '../src/charges/moves';
import { deliverAfterCommit } from '../src/events/first-delivery';
import { lockChargeUnscoped, type ChargeRow } from '../src/storage/charges';
import { findPaymentMethod } from '../src/storage/payment-methods';
import type { ChargeStatus } from '../src/domain/charge-states';
import type { PaymentType } from '../src/processors';

/**
 * The failure of a charge whose attempt was interrupted (a crash, a lost workflow task) before the
 * processor received it: no money moved, and the customer may simply try again.
 */
export const ATTEMPT_INTERRUPTED = {
  failure_code: 'attempt_interrupted',
  failure_message: 'The payment attempt was interrupted before it reached the processor; no money moved. Try again.',
} as const;

/**
 * Settles one charge the reconciler claimed (src/charges/reconciler.ts), by what the processor
 * knows of it under its idempotency key (the charge id), through the state table with its events:
 * - created deposit: the processor's outcome if it saw the charge, else failed (attempt_interrupted);
 * - created withdrawal: the hold rules (resolveHold, as for a hold whose answer was lost); a hold
 *   never sent fails the charge without a release, in a transaction that keeps a hold from being
 *   claimed meanwhile;
 * - held: the payout's outcome if the processor saw it, else failed, which releases the hold;
 * - pending: the processor's settlement.
 * Answers the status the charge ends in.
 */
export function createChargeReconciler(deps: ActivityDeps) {
  const { db } = deps;
  const { processorFor, move } = chargeMoves(deps);
  const { resolveHold } = createHoldActivities(deps);

  /** A charge's processor call answered by the processor's record: the charge moves as the answer says. */
  async function byProcessorRecord(charge: ChargeRow, from: 'created' | 'held'): Promise<ChargeStatus> {
    const lookup = await (await processorFor(charge)).lookupCharge(charge.id);
    const result = lookup.seen ? await move(charge.id, from, TO_STATUS[lookup.outcome.kind], outcomeChanges(lookup.outcome)) : await move(charge.id, from, 'failed', ATTEMPT_INTERRUPTED);
    return next(result);
  }

  /** Where a move left the charge: a pending one goes on to its settlement. */
  async function next(result: MoveResult): Promise<ChargeStatus> {
    return result.charge.status === 'pending' ? settlePending(result.charge) : result.charge.status;
  }

  async function settlePending(charge: ChargeRow): Promise<ChargeStatus> {
    const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
    const outcome = await (await processorFor(charge)).settle({ processor_charge_id: charge.processor_charge_id ?? charge.id, token: pm.processor_token, payment_type: pm.payment_type as PaymentType });
    const changes = { failure_code: outcome.failure_code ?? null, failure_message: outcome.failure_message ?? null };
    return (await move(charge.id, 'pending', outcome.kind, changes)).charge.status;
  }

  /** A withdrawal whose hold was never sent fails, no release; locked, so no hold can be claimed meanwhile. */
  async function failUnsentHold(chargeId: string): Promise<MoveResult | null> {
    const result = await db.transaction(async (trx) => {
      const locked = await lockChargeUnscoped(trx, chargeId);
      if (locked?.status !== 'created' || locked.hold_sent_at !== null) return null;
      return applyChargeMove(trx, { chargeId, from: 'created', to: 'failed', changes: ATTEMPT_INTERRUPTED });
    });
    if (result) deliverAfterCommit(deps, result.eventIds, result.recorded);
    return result;
  }

  async function settleWithdrawal(charge: ChargeRow): Promise<ChargeStatus> {
    const unsent = await failUnsentHold(charge.id);
    if (unsent) return unsent.charge.status;
    // The hold may have reached the merchant: the hold rules decide, as for an answer lost with its activity.
    const resolved = await resolveHold({ chargeId: charge.id, accepted: false, answered: false });
    return resolved.status === 'held' ? byProcessorRecord({ ...charge, status: 'held' }, 'held') : resolved.status;
  }

  return {
    async settleInterrupted(charge: ChargeRow): Promise<ChargeStatus> {
      switch (charge.status) {
        case 'created':
          return charge.transaction_type === 'debit' ? settleWithdrawal(charge) : byProcessorRecord(charge, 'created');
        case 'held':
          return byProcessorRecord(charge, 'held');
        case 'pending':
          return settlePending(charge);
        default:
          return charge.status;
      }
    },
  };
}
