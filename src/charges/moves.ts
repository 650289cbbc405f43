import type { Db } from '../storage/db';
import { assertMove, eventForMove, type ChargeStatus } from '../domain/charge-states';
import { chargeEventData } from '../domain/event-catalog';
import type { ChargeChanges, ChargeRow } from '../storage/charges';
import { moveChargeStatus } from '../storage/charges';
import { recordEvent } from '../events/record';
import { loadChargeContext } from './load';
import { updateCheckoutState } from '../storage/checkouts';
import { applySubscriptionEffects } from '../subscriptions/effects';

export interface MoveRequest {
  chargeId: string;
  to: ChargeStatus;
  /** Only move from this status; a charge someone else already moved on is left alone. */
  from?: ChargeStatus;
  changes?: ChargeChanges;
}

export interface MoveResult {
  moved: boolean;
  charge: ChargeRow;
  /** Outbox events written with the move, to dispatch once the transaction has committed. */
  eventIds: string[];
  /** Subscriptions the move created, whose renewal workflow starts once the transaction has committed. */
  subscriptionIds?: string[];
}

/**
 * The one way a charge changes status. In one transaction it locks the charge, checks the move
 * against the state table, updates the charge and records the event the table names for the
 * edge. A repeated request (an activity retried after it committed) finds the charge already in
 * `to` and changes nothing, so every move happens once.
 */
export async function applyChargeMove(db: Db, request: MoveRequest): Promise<MoveResult> {
  return db.transaction(async (trx) => {
    const charge = await trx<ChargeRow>('charges').where({ id: request.chargeId }).forUpdate().first();
    if (!charge) throw new Error(`charge ${request.chargeId} does not exist`);
    const notFromExpected = request.from !== undefined && charge.status !== request.from;
    if (charge.status === request.to || notFromExpected) return { moved: false, charge, eventIds: [] };
    assertMove(charge.status, request.to);

    const moved = (await moveChargeStatus(trx, charge.id, charge.status, request.to, request.changes ?? {}))!;
    // A checkout is completed once one of its charges has succeeded: the same commit says both.
    if (request.to === 'succeeded') {
      await updateCheckoutState(trx, charge.checkout_id, ['open', 'in_review'], 'completed');
    }
    // Subscriptions: created by the first success, advanced or dunned by a renewal, in this commit.
    const sub = await applySubscriptionEffects(trx, charge.status, moved);
    const event = eventForMove(charge.status, request.to, charge.transaction_type);
    // checkout.hold is sent synchronously by the hold activity before this move, never by the outbox.
    if (!event || event === 'checkout.hold') return { moved: true, charge: moved, eventIds: sub.eventIds, subscriptionIds: sub.created };

    const { checkout, customer, merchant } = await loadChargeContext(trx, charge);
    const data = chargeEventData({ checkout, customer, charge: moved, fromStatus: charge.status });
    const recorded = await recordEvent(trx, merchant, event, data, {
      checkoutId: charge.checkout_id,
      chargeId: charge.id,
      customerId: charge.customer_id,
    });
    return { moved: true, charge: moved, eventIds: [...(recorded.enabled ? [recorded.id] : []), ...sub.eventIds], subscriptionIds: sub.created };
  });
}
