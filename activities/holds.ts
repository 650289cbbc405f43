import { ApplicationFailure, asyncLocalStorage } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { chargeEventData, holdDestination } from '../src/domain/event-catalog';
import { recordEvent } from '../src/events/record';
import { deliverAfterCommit } from '../src/events/first-delivery';
import { holdRefusalRecordedUnscoped, setDeliveryStatus, settleUnansweredHold } from '../src/storage/events';
import { claimHold, findChargeByIdUnscoped, lockChargeUnscoped, markHoldAccepted, type ChargeRow } from '../src/storage/charges';
import { findPaymentMethod } from '../src/storage/payment-methods';
import { attemptDelivery, signingSecrets } from '../src/events/deliver';
import { WEBHOOK_TIMEOUT_MS } from '../src/webhooks/send';
import { applyChargeMove } from '../src/charges/moves';
import { loadChargeContext } from '../src/charges/load';
import { snapshot, snapshotMovedByOther, type ChargeSnapshot } from './charges';

/** What the hold handshake learnt: `sent` is false when the charge's hold was not ours to send. */
export interface HoldAnswer {
  accepted: boolean;
  sent: boolean;
  eventId: string | null;
}

/**
 * How long a hold sent by someone else (the sandbox simulator) may stay unanswered before the
 * workflow stops waiting for it: the handshake's own 10 s timeout plus margin.
 */
const FOREIGN_HOLD_WAIT_MS = 30_000;

const INSUFFICIENT_FUNDS = { failure_code: 'insufficient_funds', failure_message: 'The merchant did not confirm the customer has the funds.' };

/** Each statement of the claim's transaction (the claim, the hold event) gets at most this long. */
const CLAIM_STATEMENT_LIMIT_MS = 300;

/**
 * The time the activity must have left when it claims the hold: the POST's own 10 s, plus the
 * claim's two statements and its commit. The POST then ends before Temporal gives up on the
 * activity, so the workflow never fails and releases the charge while its hold is in flight.
 */
const HOLD_CLAIM_BUDGET_MS = WEBHOOK_TIMEOUT_MS + 2 * CLAIM_STATEMENT_LIMIT_MS + 100; // 10.7 s of the activity's 15

/** How long before this function runs Temporal may have started the attempt's clock (the task's trip to the worker). */
const DISPATCH_ALLOWANCE_MS = 1_000;

/** Raised when the activity has too little time left to make the hold's POST: nothing was claimed or sent. */
const HOLD_TOO_LATE = 'HOLD_TOO_LATE';

/** The answer for a charge whose hold is not this activity's to send: it moved on, or its hold was sent. */
const NOT_OURS: HoldAnswer = { accepted: false, sent: false, eventId: null };

/**
 * When Temporal gives up on the running activity attempt, by this worker's clock; null outside an
 * activity (the sandbox simulator makes the handshake in its own request, bounded by the POST's
 * timeout alone). The start-to-close clock starts when the attempt is handed to a worker: after it
 * was scheduled, and at most DISPATCH_ALLOWANCE_MS before the activity began to run. The earliest
 * such start is taken, so the deadline is never later than Temporal's.
 */
function attemptDeadlineMs(enteredAtMs: number): number | null {
  const info = asyncLocalStorage.getStore()?.info;
  if (!info) return null;
  const deadlines: number[] = [];
  if (info.startToCloseTimeoutMs > 0) {
    const startedAtMs = Math.max(info.currentAttemptScheduledTimestampMs, enteredAtMs - DISPATCH_ALLOWANCE_MS);
    deadlines.push(startedAtMs + info.startToCloseTimeoutMs);
  }
  if (info.scheduleToCloseTimeoutMs > 0) deadlines.push(info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs);
  return deadlines.length > 0 ? Math.min(...deadlines) : null;
}

/** A charge whose hold no one has claimed: still `created`, its hold never sent nor released. */
const holdClaimable = (charge: ChargeRow) => charge.status === 'created' && charge.hold_sent_at === null && charge.hold_released_at === null;

/** How the hold's answer moves the charge, and the acceptance recorded the moment it arrives. */
function holdMoves(deps: ActivityDeps) {
  const { db } = deps;

  async function snapshotOf(charge: ChargeRow, movedByOther = false): Promise<ChargeSnapshot> {
    const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
    return movedByOther ? snapshotMovedByOther(db, charge, pm.payment_type) : snapshot(charge, pm.payment_type);
  }

  async function move(chargeId: string, to: 'held' | 'failed', holdAnswerLost = false): Promise<ChargeSnapshot> {
    const result = await applyChargeMove(db, { chargeId, from: 'created', to, changes: to === 'failed' ? INSUFFICIENT_FUNDS : {}, holdAnswerLost });
    deliverAfterCommit(deps, result.eventIds, result.recorded);
    return snapshotOf(result.charge, !result.moved && result.charge.status !== to);
  }

  /**
   * The merchant accepted the hold: recorded at once, before anything else can be lost. A charge
   * that failed meanwhile (the processor moved it while the merchant answered) releases the hold,
   * unless its failure already did: the workflow, having given up on this answer, failed the
   * charge as one whose answer was lost, which releases it too (charges.hold_released_at).
   */
  async function recordHoldAccepted(chargeId: string): Promise<void> {
    const eventIds = await db.transaction(async (trx) => {
      const charge = (await lockChargeUnscoped(trx, chargeId))!;
      const releases = (charge.status === 'failed' || charge.status === 'cancelled') && charge.hold_released_at === null;
      await markHoldAccepted(trx, chargeId, releases);
      if (!releases) return [];
      const { checkout, customer, merchant } = await loadChargeContext(trx, charge);
      const data = chargeEventData({ checkout, customer, charge, fromStatus: charge.status });
      const event = await recordEvent(trx, merchant, 'checkout.release_hold', data, { checkoutId: charge.checkout_id, chargeId: charge.id, customerId: charge.customer_id });
      return event.enabled ? [event.id] : [];
    });
    deliverAfterCommit(deps, eventIds);
  }

  return { snapshotOf, move, recordHoldAccepted };
}

export function createHoldActivities(deps: ActivityDeps) {
  const moves = holdMoves(deps);
  return {
    placeHold: (input: { chargeId: string }) => placeHold(deps, moves, input),
    resolveHold: (input: ResolveHoldInput) => resolveHold(deps, moves, input),
  };
}

type HoldMoves = ReturnType<typeof holdMoves>;
type ResolveHoldInput = { chargeId: string; accepted: boolean; answered?: boolean; sentByOther?: boolean };

/**
 * The hold handshake: checkout.hold is recorded and sent synchronously, once (the charge's
 * hold is claimed first and this activity is never retried), before the charge moves. Only a
 * 2xx answer within 10 s accepts it; any other answer, a timeout or no webhook_url means the
 * customer lacks the funds. A charge that already moved on, or whose hold was sent, gets none.
 *
 * Claim last, then send: everything that can fail (the charge's rows, the event's data, the
 * signing secrets) is read before the claim, and the claim's commit, with the hold event in it,
 * is the last step before the POST. A crash or a database outage before that commit leaves the
 * hold unclaimed, so the charge fails without a release for a hold the merchant never saw. The
 * claim itself refuses a charge that is no longer `created`, and an activity with too little
 * time left for the POST (HOLD_TOO_LATE): it never sends a hold for a charge the workflow
 * has already failed, having given up on this activity.
 */
async function placeHold(deps: ActivityDeps, { recordHoldAccepted }: HoldMoves, input: { chargeId: string }): Promise<HoldAnswer> {
  const { db } = deps;
  const deadlineMs = attemptDeadlineMs(Date.now());
  const found = await findChargeByIdUnscoped(db, input.chargeId);
  if (!found || !holdClaimable(found)) return NOT_OURS;
  const { checkout, customer, merchant } = await loadChargeContext(db, found);
  // The event describes the move it asks for: created -> held.
  const base = chargeEventData({ checkout, customer, charge: { ...found, status: 'held' }, fromStatus: 'created' });
  // The destination rides in the hold so the merchant can decide where the money may go.
  const destination = holdDestination((await findPaymentMethod(db, found.merchant_id, found.payment_method_id))!);
  const data = { ...base, charge: { ...base.charge, payment_method: destination } };
  signingSecrets(deps.sealer, merchant); // opened again to sign the POST: a secret that cannot be opened fails here, unclaimed
  const claimed = await db.transaction(async (trx) => {
    if (deadlineMs !== null && deadlineMs - Date.now() < HOLD_CLAIM_BUDGET_MS) {
      throw ApplicationFailure.nonRetryable(`${deadlineMs - Date.now()} ms left: too little for the hold's ${WEBHOOK_TIMEOUT_MS} ms POST; the hold was not sent`, HOLD_TOO_LATE);
    }
    const charge = await claimHold(trx, found.id, CLAIM_STATEMENT_LIMIT_MS);
    if (!charge) return undefined;
    const event = await recordEvent(trx, merchant, 'checkout.hold', data, { checkoutId: charge.checkout_id, chargeId: charge.id, customerId: charge.customer_id }, 'hold');
    return { charge, event };
  });
  if (!claimed) return NOT_OURS;
  const { charge, event } = claimed;
  // A 2xx is written to the charge before anything else, its log line included: a failure
  // after it (the activity's answer lost) cannot lose the merchant's acceptance.
  const result = await attemptDelivery(deps, event, merchant, 1, {
    markDelivered: { dispatched: false },
    onAnswer: async (answer) => {
      if (answer.ok) await recordHoldAccepted(charge.id);
    },
  });
  const accepted = result?.ok ?? false;
  // An accepted hold wrote `delivered` with its attempt.
  if (!accepted) await setDeliveryStatus(db, event.id, !result ? 'no_webhook_url' : 'failed');
  return { accepted, sent: true, eventId: event.id };
}

/**
 * The hold's answer decides the charge: accepted -> held; anything else fails it while
 * `created`. When the answer was not learnt (the hold activity failed), the recorded answer
 * decides: an accepted hold is held; otherwise the charge fails and, when its hold was claimed
 * (the claim's commit is the last step before the POST, so the merchant may have received the
 * hold and accepted it before the answer was lost), the failure also releases the hold. An
 * unclaimed hold was never sent: nothing to release. A hold sent by someone else is waited for
 * (this activity is retried) until its sender moves the charge.
 */
async function resolveHold(deps: ActivityDeps, { snapshotOf, move }: HoldMoves, input: ResolveHoldInput): Promise<ChargeSnapshot> {
  const { db } = deps;
  const charge = (await findChargeByIdUnscoped(db, input.chargeId))!;
  if (charge.status !== 'created') return snapshotOf(charge, true);
  // The answer was learnt: it decides.
  if (input.answered !== false) return move(charge.id, input.accepted ? 'held' : 'failed');
  // The hold's sender died before writing its event's outcome: the answer the charge goes by
  // settles it, before the move, so that nothing is left pending if the move's answer is lost.
  const sentAt = charge.hold_sent_at;
  const settleHold = async (status: 'delivered' | 'failed') => sentAt && settleUnansweredHold(db, charge.merchant_id, charge.id, sentAt, status);
  if (charge.hold_accepted_at) {
    await settleHold('delivered');
    return move(charge.id, 'held');
  }
  // A refusal recorded before the answer was lost (a worker that died after the merchant's 402)
  // decides like one returned: the merchant holds nothing, so there is nothing to release.
  if (sentAt && (await holdRefusalRecordedUnscoped(db, charge.id))) {
    await settleHold('failed');
    return move(charge.id, 'failed');
  }
  const waitedMs = sentAt ? Date.now() - sentAt.getTime() : Infinity;
  if (input.sentByOther && waitedMs < FOREIGN_HOLD_WAIT_MS) {
    throw ApplicationFailure.retryable('the hold handshake of this charge is still under way', 'HOLD_UNDER_WAY');
  }
  await settleHold('failed');
  return move(charge.id, 'failed', sentAt !== null);
}
