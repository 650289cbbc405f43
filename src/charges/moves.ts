import type { Db } from '../storage/db';
import type { RecordedEvents } from '../events/first-delivery';
import { ChargeRefundInProgress, IllegalChargeMove, assertMoveFor, eventForMove, findTransition, moveRefusalFor, type ChargeStatus } from '../domain/charge-states';
import { chargeEventData, type EventType } from '../domain/event-catalog';
import type { ChargeChanges, ChargeRow } from '../storage/charges';
import { definedChanges, lockChargeUnscoped, moveChargeRecording, moveChargeStatus } from '../storage/charges';
import { findMerchant } from '../storage/merchants';
import { findRefundOfChargeUnscoped } from '../storage/refunds';
import { outboxRows, recordEvents, type EventToRecord } from '../events/record';
import { loadChargeContext, type KnownChargeRows } from './load';
import { updateCheckoutState } from '../storage/checkouts';
import { applySubscriptionEffects, concernsSubscription } from '../subscriptions/effects';

export interface MoveRequest {
  chargeId: string;
  to: ChargeStatus;
  /** Only move from this status; a charge someone else already moved on is left alone. */
  from?: ChargeStatus;
  changes?: ChargeChanges;
  /**
   * The merchant may hold the customer's funds although no 2xx answer was recorded (the hold's
   * answer was lost with a crashed activity): the failure then also releases the hold.
   */
  holdAnswerLost?: boolean;
  /** The charge's customer and checkout, when the caller already read them: its events need no re-read. */
  known?: KnownChargeRows;
}

export interface MoveResult {
  moved: boolean;
  charge: ChargeRow;
  /** Outbox events written with the move, to dispatch once the transaction has committed. */
  eventIds: string[];
  /** The move's own events as written, and their merchant: its first delivery attempt needs no re-read. */
  recorded?: RecordedEvents;
  /** Subscriptions the move created, whose renewal workflow starts once the transaction has committed. */
  subscriptionIds?: string[];
}

/** Statuses that end a withdrawal without paying it: a merchant holding the funds must free them. */
const RELEASING_STATUSES: ReadonlySet<ChargeStatus> = new Set<ChargeStatus>(['failed', 'cancelled']);

/**
 * Statuses in which a withdrawal's accepted hold is still outstanding: answered (created), held,
 * or paying out (pending). Once the payout succeeded the hold was spent, so a later reversal
 * (succeeded -> failed) reports only the table's checkout.failed: a release as well would have a
 * merchant credit the customer twice.
 */
const HOLD_OUTSTANDING_STATUSES: ReadonlySet<ChargeStatus> = new Set<ChargeStatus>(['created', 'held', 'pending']);

/**
 * The one way a charge changes status. In one transaction it locks the charge, checks the move
 * against the state table and the kind of charge, respects a refund's claim, updates the charge
 * and records the events for the edge. A repeated request (an activity retried after it
 * committed) finds the charge already in `to` and changes nothing, so every move happens once.
 */
export async function applyChargeMove(db: Db, request: MoveRequest): Promise<MoveResult> {
  return (await moveAsRead(db, request)) ?? moveLocked(db, request);
}

/**
 * The move of a charge its caller holds as it last read it (`known.charge`, with its customer and
 * checkout), decided from that row: the merchant read as the events are recorded (or as the caller
 * read it, with its row's version), then one statement that moves the charge only while it, and the
 * merchant row the events were made from, are still as read, completes the checkout on a success
 * and records the events (one or two statements where the locked path makes six or seven). It
 * applies only where that row decides the move alone: not from `succeeded` (a refund's claim is
 * read under the lock), not for a move the table refuses, and not where a subscription may be
 * concerned. Undefined, with nothing written, when it does not apply or the charge changed since
 * it was read: the locked path then decides as it always does.
 */
async function moveAsRead(db: Db, request: MoveRequest): Promise<MoveResult | undefined> {
  const { known, from, to } = request;
  const charge = known?.charge;
  if (!charge || !known.customer || !known.checkout || from === undefined || charge.status !== from) return undefined;
  if (from === to || from === 'succeeded' || !findTransition(from, to) || moveRefusalFor(from, to, charge.transaction_type) !== null) return undefined;
  if (concernsSubscription(charge, known.checkout)) return undefined;

  const changes = request.changes ?? {};
  const types = eventsForMove(charge, request);
  const releasesHold = types.includes('checkout.release_hold');
  // The merchant as the mover read it serves while its row is unchanged (the statement checks it).
  const merchant = known.merchant?.merchant ?? (await findMerchant(db, charge.merchant_id))!;
  const after = { ...charge, ...definedChanges(changes), status: to };
  const rows = outboxRows(merchant, moveEvents(types, charge, chargeEventData({ checkout: { ...known.checkout, live_subscription: null }, customer: known.customer, charge: after, fromStatus: from })));
  const completeCheckoutId = to === 'succeeded' ? charge.checkout_id : null;
  const recorded = await moveChargeRecording(db, { id: charge.id, to, changes, releasesHold, basis: charge, completeCheckoutId, merchantVersion: known.merchant?.version }, rows);
  if (!recorded) return undefined;
  const events = recorded.events.filter((event) => event.enabled);
  return { moved: true, charge: recorded.charge, eventIds: events.map((e) => e.id), recorded: { events, merchant } };
}

/** The move decided under the charge's lock, for every charge and every caller. */
async function moveLocked(db: Db, request: MoveRequest): Promise<MoveResult> {
  return db.transaction(async (trx) => {
    const charge = await lockChargeUnscoped(trx, request.chargeId);
    if (!charge) throw new Error(`charge ${request.chargeId} does not exist`);
    const notFromExpected = request.from !== undefined && charge.status !== request.from;
    if (charge.status === request.to || notFromExpected) return { moved: false, charge, eventIds: [] };
    assertMoveFor(charge.status, request.to, charge.transaction_type);
    await assertRefundRules(trx, charge, request.to);

    const types = eventsForMove(charge, request);
    // The one release of the charge's hold is marked in the same write (see eventsForMove).
    const releasesHold = types.includes('checkout.release_hold');
    const moved = (await moveChargeStatus(trx, charge.id, charge.status, request.to, request.changes ?? {}, releasesHold))!;
    // A checkout is completed once one of its charges has succeeded: the same commit says both.
    let known = request.known;
    if (request.to === 'succeeded') {
      const completed = await updateCheckoutState(trx, charge.checkout_id, ['open', 'in_review'], 'completed');
      if (completed) known = { ...known, checkout: completed };
    }
    // Subscriptions: created by the first success, advanced or dunned by a renewal, in this commit.
    const sub = await applySubscriptionEffects(trx, charge.status, moved, known?.checkout);
    if (types.length === 0) return { moved: true, charge: moved, eventIds: sub.eventIds, subscriptionIds: sub.created };

    const { checkout, customer, merchant } = await loadChargeContext(trx, charge, known);
    const data = chargeEventData({ checkout, customer, charge: moved, fromStatus: charge.status });
    const events = (await recordEvents(trx, merchant, moveEvents(types, charge, data))).filter((event) => event.enabled);
    return { moved: true, charge: moved, eventIds: [...events.map((e) => e.id), ...sub.eventIds], subscriptionIds: sub.created, recorded: { events, merchant } };
  });
}

/** The move's events of these types: each describes the move (`data`) and refers to the charge's rows. */
function moveEvents(types: readonly EventType[], charge: ChargeRow, data: object): EventToRecord[] {
  const refs = { checkoutId: charge.checkout_id, chargeId: charge.id, customerId: charge.customer_id };
  return types.map((type) => ({ type, data, refs }));
}

/**
 * The table's event for the edge, plus checkout.release_hold (always on) when a withdrawal whose
 * hold the merchant accepted fails or is cancelled while that hold is outstanding, from a status
 * other than `held` (whose own edge already releases): pending -> failed after a payout was
 * submitted, or a charge failed while its accepted hold was being recorded. Never after success.
 */
function eventsForMove(charge: ChargeRow, request: MoveRequest): EventType[] {
  const tableEvent = eventForMove(charge.status, request.to, charge.transaction_type);
  // checkout.hold is sent synchronously by the hold activity before this move, never by the outbox.
  const types: EventType[] = tableEvent && tableEvent !== 'checkout.hold' ? [tableEvent] : [];
  const holdMayBeAccepted = charge.hold_accepted_at !== null || request.holdAnswerLost === true;
  const holdOutstanding = HOLD_OUTSTANDING_STATUSES.has(charge.status);
  if (charge.transaction_type === 'debit' && holdMayBeAccepted && holdOutstanding && RELEASING_STATUSES.has(request.to) && !types.includes('checkout.release_hold')) {
    types.push('checkout.release_hold');
  }
  // A hold is released once (charges.hold_released_at): never a second checkout.release_hold.
  return charge.hold_released_at ? types.filter((type) => type !== 'checkout.release_hold') : types;
}

/**
 * A refund claims its charge (a pending refund row) before it goes to the processor: while it
 * does, no other move may take the charge from `succeeded`; and `refunded` is reached only by a
 * recorded refund.
 */
async function assertRefundRules(trx: Db, charge: ChargeRow, to: ChargeStatus): Promise<void> {
  if (charge.status !== 'succeeded') return;
  const refund = await findRefundOfChargeUnscoped(trx, charge.id);
  if (to === 'refunded') {
    if (!refund) throw new IllegalChargeMove(charge.status, to, 'A charge becomes refunded only through a recorded refund.');
    return;
  }
  if (refund) throw new ChargeRefundInProgress(charge.id);
}
