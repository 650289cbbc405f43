import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { applyChargeMove } from '../src/charges/moves';
import { chargeAnswer, type ChargeAnswer } from '../src/charges/present';
import { checkoutPageUrl } from '../src/checkouts/present';
import type { KnownChargeRows } from '../src/charges/load';
import { deliverAfterCommit } from '../src/events/first-delivery';
import { startSubscriptionWorkflows } from '../src/subscriptions/workflows';
import { getProcessor, isProcessorName, ProcessorUnavailable, type ChargeOutcome, type Processor } from '../src/processors';
import { merchantProcessor } from '../src/merchants/processor';
import { findMerchant } from '../src/storage/merchants';
import { findChargeByIdUnscoped, type ChargeRow } from '../src/storage/charges';
import { findCheckoutByIdUnscoped } from '../src/storage/checkouts';
import { findPaymentMethod, type PaymentMethodRow } from '../src/storage/payment-methods';
import type { AttemptChargeRow } from './attempt-charge';
import { renewAttemptLease } from '../src/storage/charge-leases';
import { crashIfAt } from '../src/crash-points';
import type { ChargeStatus } from '../src/domain/charge-states';
import type { Db } from '../src/storage/db';

export interface ChargeSnapshot {
  chargeId: string;
  status: ChargeStatus;
  transactionType: 'credit' | 'debit';
  paymentType: string;
  amountCents: number;
  /**
   * Set when the charge did not end as this activity moved it (the processor or the simulator
   * moved it meanwhile) and its checkout is completed: a charge that succeeded and was then
   * voided, returned, refunded or failed still completed its checkout.
   */
  checkoutCompleted?: boolean;
  /** The charge as the wallet answers it, so the API need not read it back. */
  answer?: ChargeAnswer;
}

export function snapshot(charge: ChargeRow, paymentType: string): ChargeSnapshot {
  return { chargeId: charge.id, status: charge.status, transactionType: charge.transaction_type, paymentType, amountCents: charge.amount_cents, answer: chargeAnswer(charge) };
}

/** Statuses a charge reaches only after it succeeded (voided, returned, refunded). */
const AFTER_SUCCESS: ReadonlySet<ChargeStatus> = new Set<ChargeStatus>(['voided', 'returned', 'refunded']);

/**
 * The snapshot of a charge an activity found already moved on by someone else (the simulator,
 * the processor): it says whether the charge completed its checkout on the way, so the workflow
 * closes the checkout as the database already has. Moves of the activity's own need no look-up.
 */
export async function snapshotMovedByOther(db: Db, charge: ChargeRow, paymentType: string): Promise<ChargeSnapshot> {
  const result = snapshot(charge, paymentType);
  if (charge.status === 'succeeded' || AFTER_SUCCESS.has(charge.status)) return { ...result, checkoutCompleted: true };
  if (charge.status === 'failed' || charge.status === 'cancelled') {
    const checkout = await findCheckoutByIdUnscoped(db, charge.checkout_id);
    if (checkout?.state === 'completed') return { ...result, checkoutCompleted: true };
  }
  return result;
}

/** The charge's columns as a processor's answer sets them. */
export function outcomeChanges(outcome: ChargeOutcome) {
  return {
    processor_charge_id: outcome.processor_charge_id,
    avs_result: outcome.avs_result,
    cvv_result: outcome.cvv_result,
    network_authorization_code: outcome.network_authorization_code,
    threeds: outcome.threeds as Record<string, unknown> | null,
    failure_code: outcome.failure_code ?? null,
    failure_message: outcome.failure_message ?? null,
  };
}

/** The customer's next step (3D Secure's redirect) on the answer for the charge it is pending on. */
function withNextAction(result: ChargeSnapshot, outcome: ChargeOutcome): ChargeSnapshot {
  if (!outcome.next_action || !result.answer || result.answer.status !== 'pending') return result;
  return { ...result, answer: { ...result.answer, next_action: outcome.next_action } };
}

/** The processor with every remote call made through `call`. */
function around(processor: Processor, call: <T>(remote: () => Promise<T>) => Promise<T>): Processor {
  return {
    name: processor.name,
    supportsRefunds: processor.supportsRefunds,
    tokenize: processor.tokenize.bind(processor),
    charge: (r) => call(() => processor.charge(r)),
    payout: (r) => call(() => processor.payout(r)),
    settle: (r) => call(() => processor.settle(r)),
    refund: (r) => call(() => processor.refund(r)),
    lookupCharge: (key) => call(() => processor.lookupCharge(key)),
  };
}

/** The sandbox answers at once; a configured latency makes it behave like a remote processor. */
function withLatency(processor: Processor, latencyMs: number): Processor {
  if (latencyMs <= 0) return processor;
  const wait = () => new Promise((resolve) => setTimeout(resolve, latencyMs));
  return around(processor, async (remote) => (await wait(), remote()));
}

/**
 * A processor that could not answer (ProcessorUnavailable) as the activity's failure: retryable
 * ones are retried by the activity's preset (the call carries its idempotency key), the others
 * are not, since no retry cures them.
 */
export function processorFailures(processor: Processor): Processor {
  return around(processor, (remote) =>
    remote().catch((error: unknown) => {
      if (!(error instanceof ProcessorUnavailable)) throw error;
      throw error.retryable ? ApplicationFailure.retryable(error.message, 'PROCESSOR_UNAVAILABLE') : ApplicationFailure.nonRetryable(error.message, 'PROCESSOR_REFUSED');
    }),
  );
}

export const TO_STATUS = { succeeded: 'succeeded', failed: 'failed', pending: 'pending' } as const;

/**
 * How charge activities (and the reconciler) reach the processor and move a charge: the charge's
 * own processor, recording its calls in the database (the sandbox's memory of them), and a move
 * whose events and subscription workflows start after its commit.
 */
export function chargeMoves(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async processorFor(charge: Pick<ChargeRow, 'processor' | 'merchant_id'>): Promise<Processor> {
      // A sandbox needs no credentials, so the merchant is read only for a real connector.
      if (isProcessorName(charge.processor)) return withLatency(getProcessor(charge.processor, db), deps.config.sandboxLatencyMs);
      const merchant = await findMerchant(db, charge.merchant_id);
      if (!merchant) throw ApplicationFailure.nonRetryable(`merchant ${charge.merchant_id} does not exist`);
      return processorFailures(merchantProcessor(merchant, deps, charge.processor));
    },

    /** Moves the charge and, after the commit, starts delivery of the events the move recorded. */
    async move(chargeId: string, from: ChargeStatus, to: ChargeStatus, changes = {}, known?: KnownChargeRows) {
      const result = await applyChargeMove(db, { chargeId, from, to, changes, known });
      deliverAfterCommit(deps, result.eventIds, result.recorded);
      await startSubscriptionWorkflows(deps, result.subscriptionIds);
      return result;
    },
  };
}

/**
 * The steps every charge activity shares: load a charge, resume one this try did not insert, move
 * it (or find it moved by someone else), and take a deposit at the processor.
 */
export function chargeSteps(deps: ActivityDeps) {
  const { db } = deps;
  const { processorFor, move } = chargeMoves(deps);

  async function load(chargeId: string) {
    const charge = await findChargeByIdUnscoped(db, chargeId);
    if (!charge) throw ApplicationFailure.nonRetryable(`charge ${chargeId} does not exist`);
    const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
    return { charge, pm, processor: await processorFor(charge) };
  }

  /**
   * A charge this try did not insert (an earlier try's, a redelivered attempt's, an approval's or a
   * renewal's) is resumed only while no reconciler holds it: its sign of an owner is renewed, so the
   * reconciler leaves it alone for a lease. One the reconciler claimed is waited for (this activity is
   * retried) until it is settled; one that moved on meanwhile is answered as it is.
   */
  async function resume(charge: ChargeRow): Promise<ChargeRow> {
    const renewed = await renewAttemptLease(db, charge.id, deps.config.reconcileLeaseMs);
    if (renewed) return renewed;
    const current = (await findChargeByIdUnscoped(db, charge.id))!;
    if (current.status !== 'created') return current;
    throw ApplicationFailure.retryable('the reconciler is settling this charge', 'CHARGE_BEING_RECONCILED');
  }

  /** The attempt's charge as it may go on: inserted by this try, moved on already, or resumed (see resume). */
  function goOnWith(made: AttemptChargeRow): Promise<ChargeRow> | ChargeRow {
    return made.inserted || made.charge.status !== 'created' ? made.charge : resume(made.charge);
  }

  /** The snapshot after our own move, or after finding the charge moved on by someone else. */
  async function afterMove(chargeId: string, from: ChargeStatus, to: ChargeStatus, paymentType: string, changes = {}, known?: KnownChargeRows): Promise<ChargeSnapshot> {
    const result = await move(chargeId, from, to, changes, known);
    return result.moved || result.charge.status === to ? snapshot(result.charge, paymentType) : snapshotMovedByOther(db, result.charge, paymentType);
  }

  /**
   * Takes a deposit: created -> succeeded or failed (cards, wallets) or pending (bank, crypto). A
   * charge this try did not insert is resumed first (see resume).
   */
  async function chargeAtProcessor(made: AttemptChargeRow, pm: PaymentMethodRow, known?: KnownChargeRows): Promise<ChargeSnapshot> {
    const charge = await goOnWith(made);
    if (charge.status !== 'created') return snapshotMovedByOther(db, charge, pm.payment_type);
    const outcome = await (await processorFor(charge)).charge({
      token: pm.processor_token,
      payment_type: pm.payment_type,
      amount_cents: charge.amount_cents,
      transaction_type: 'credit',
      idempotency_key: charge.id,
      merchant_initiated: (charge.subscription_period ?? 0) > 0, // a subscription renewal
      return_url: checkoutPageUrl(deps.config.walletBaseUrl, charge.checkout_id),
    });
    crashIfAt(deps.config, 'after_processor_call');
    // The charge as read before the processor's call: the move is made from it only while it is still so.
    const result = await afterMove(charge.id, 'created', TO_STATUS[outcome.kind], pm.payment_type, outcomeChanges(outcome), known && { ...known, charge });
    return withNextAction(result, outcome);
  }

  return { load, goOnWith, afterMove, chargeAtProcessor };
}

/** A charge at the processor after its creation: a deposit taken, a payout sent, a pending charge settled. */
export function createChargeActivities(deps: ActivityDeps) {
  const { db } = deps;
  const { load, afterMove, chargeAtProcessor } = chargeSteps(deps);
  return {
    async chargeDeposit(input: { chargeId: string }): Promise<ChargeSnapshot> {
      const { charge, pm } = await load(input.chargeId);
      return chargeAtProcessor({ charge, inserted: false }, pm);
    },

    /** Sends a withdrawal's money once its hold was accepted: held -> succeeded, failed or pending. */
    async payoutCharge(input: { chargeId: string }): Promise<ChargeSnapshot> {
      const { charge, pm, processor } = await load(input.chargeId);
      if (charge.status !== 'held') return snapshotMovedByOther(db, charge, pm.payment_type);
      const outcome = await processor.payout({ token: pm.processor_token, payment_type: pm.payment_type, amount_cents: charge.amount_cents, idempotency_key: charge.id });
      return afterMove(charge.id, 'held', TO_STATUS[outcome.kind], pm.payment_type, outcomeChanges(outcome));
    },

    /** The final result of a pending charge or payout: pending -> succeeded or failed. */
    async settleCharge(input: { chargeId: string }): Promise<ChargeSnapshot> {
      const { charge, pm, processor } = await load(input.chargeId);
      if (charge.status !== 'pending') return snapshotMovedByOther(db, charge, pm.payment_type);
      const outcome = await processor.settle({ processor_charge_id: charge.processor_charge_id ?? charge.id, token: pm.processor_token, payment_type: pm.payment_type });
      const changes = { failure_code: outcome.failure_code ?? null, failure_message: outcome.failure_message ?? null };
      return afterMove(charge.id, 'pending', outcome.kind, pm.payment_type, changes);
    },
  };
}
