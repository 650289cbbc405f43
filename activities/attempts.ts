import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { attemptTimings, loadGateRows, planFor, type AttemptPlan, type GateRows } from './attempt-plan';
import { insertAttemptCharge, type AttemptCharge } from './attempt-charge';
import { chargeSteps, snapshot, type ChargeSnapshot } from './charges';
import type { KnownChargeRows } from '../src/charges/load';
import { crashIfAt } from '../src/crash-points';
import { findChargeByAttemptKeyUnscoped } from '../src/storage/charges';
import { findCheckoutByIdUnscoped, findCheckoutWithAttemptRows, type CheckoutRow } from '../src/storage/checkouts';
import { findCustomer, type CustomerRow } from '../src/storage/customers';
import type { Db } from '../src/storage/db';
import { findMerchant, type MerchantRow } from '../src/storage/merchants';
import { findPaymentMethod, type PaymentMethodRow } from '../src/storage/payment-methods';
import { FAILURE_TYPES } from '../workflows/contract';

/** `merchantVersion`: the merchant row's version, when it was read with the rest. */
type AttemptRows = { checkout: CheckoutRow; merchant: MerchantRow; merchantVersion?: string; pm: PaymentMethodRow; gateRows: GateRows };
/** The checkout's merchant and customer, as its workflow knows them. */
type CheckoutOwner = { merchantId?: string; customerId?: string };
type AttemptRequest = AttemptCharge & { checkoutId: string; paymentMethodId: string };

/** A payment attempt: its plan, its charge and, for a deposit, the processor's answer. */
export function createAttemptActivities(deps: ActivityDeps) {
  const { db } = deps;
  const { goOnWith, chargeAtProcessor } = chargeSteps(deps);
  return {
    /** The charge of an approved attempt (its approval usually made it: this finds it by the attempt key). */
    async createCharge(input: AttemptRequest): Promise<ChargeSnapshot> {
      const rows = await loadAttempt(db, input.checkoutId, input.paymentMethodId);
      return snapshot((await insertAttemptCharge(db, rows, input)).charge, rows.pm.payment_type);
    },

    /**
     * An attempt in one activity (one round trip through Temporal), each row loaded once: the
     * plan (gates, review rule), then, when nothing blocks it or waits for a review, the charge,
     * and for a deposit the processor's answer. Every step is idempotent (the attempt key, the
     * charge id at the processor, the move's compare-and-set), so a retry repeats none of them.
     */
    async beginAttempt(input: AttemptRequest & CheckoutOwner): Promise<{ plan: AttemptPlan; charge: ChargeSnapshot | null }> {
      const rows = await loadAttempt(db, input.checkoutId, input.paymentMethodId, input);
      const plan = await planOnce(db, rows, input);
      if (plan.block || plan.needsReview) return { plan, charge: null };
      crashIfAt(deps.config, 'before_charge_insert');
      const made = await insertAttemptCharge(db, rows, input);
      crashIfAt(deps.config, 'after_charge_insert');
      let charge: ChargeSnapshot;
      if (rows.checkout.type === 'deposit') charge = await chargeAtProcessor(made, rows.pm, attemptKnownRows(rows));
      else charge = snapshot(await goOnWith(made), rows.pm.payment_type);
      crashIfAt(deps.config, 'after_charge_move');
      // Dies once the answer is on its way to the workflow, before its task completes.
      if (deps.config.testCrashAt === 'before_task_completes') setImmediate(() => crashIfAt(deps.config, 'before_task_completes'));
      return { plan, charge };
    },
  };
}

/**
 * Every row an attempt reads, each once, and in one statement when the workflow names the
 * checkout's merchant and customer (createCharge does not: the checkout is read first, then the
 * rest). The KYC record and the geo check follow the merchant and the checkout, whose settings and
 * type say whether the gates need them.
 */
async function loadAttempt(db: Db, checkoutId: string, paymentMethodId: string, owner: CheckoutOwner = {}): Promise<AttemptRows> {
  const read = owner.merchantId && owner.customerId ? await readTogether(db, checkoutId, paymentMethodId, owner.merchantId, owner.customerId) : await readInTurn(db, checkoutId, paymentMethodId);
  const { checkout, merchant, merchantVersion, paymentMethod: pm, customer } = read;
  if (!pm) throw ApplicationFailure.nonRetryable('payment method not found');
  const gateRows = await loadGateRows(db, merchant!, checkout, customer!);
  return { checkout, merchant: merchant!, merchantVersion, pm, gateRows };
}

/** The rows the attempt read that its charge's move goes by: the move reads none of them again. */
function attemptKnownRows({ checkout, merchant, merchantVersion, gateRows }: AttemptRows): KnownChargeRows {
  return { customer: gateRows.customer, checkout, ...(merchantVersion !== undefined ? { merchant: { merchant, version: merchantVersion } } : {}) };
}

type ReadRows = { checkout: CheckoutRow; merchant?: MerchantRow; merchantVersion?: string; paymentMethod?: PaymentMethodRow; customer?: CustomerRow };

async function readTogether(db: Db, checkoutId: string, paymentMethodId: string, merchantId: string, customerId: string): Promise<ReadRows> {
  const read = await findCheckoutWithAttemptRows(db, { checkoutId, merchantId, customerId, paymentMethodId });
  if (!read) throw ApplicationFailure.nonRetryable('checkout not recorded', FAILURE_TYPES.checkoutNotOpen);
  if (read.checkout.merchant_id !== merchantId || read.checkout.customer_id !== customerId) {
    throw ApplicationFailure.nonRetryable(`checkout ${checkoutId} belongs to another merchant or customer than its workflow says`);
  }
  return read;
}

async function readInTurn(db: Db, checkoutId: string, paymentMethodId: string): Promise<ReadRows> {
  const checkout = await findCheckoutByIdUnscoped(db, checkoutId);
  if (!checkout) throw ApplicationFailure.nonRetryable('checkout not recorded', FAILURE_TYPES.checkoutNotOpen);
  const [merchant, paymentMethod, customer] = await Promise.all([
    findMerchant(db, checkout.merchant_id),
    findPaymentMethod(db, checkout.merchant_id, paymentMethodId),
    findCustomer(db, checkout.merchant_id, checkout.customer_id),
  ]);
  return { checkout, merchant, paymentMethod, customer };
}

/**
 * The attempt's plan. A retry whose earlier try already made the charge (a worker that died, a
 * processor or database error after the insert) keeps the decisions that charge was made under:
 * the gates and the review rule passed then, so a setting or gate row changed since must neither
 * block the checkout nor open a review beside a charge in progress (left so for ever). The charge
 * is looked up only when the plan would stop the attempt, so the common path reads nothing more.
 */
async function planOnce(db: Db, rows: AttemptRows, input: AttemptCharge): Promise<AttemptPlan> {
  const planInput = { ...rows, amountCents: input.amountCents };
  const madeEarlier = async () => (await findChargeByAttemptKeyUnscoped(db, input.attemptKey))?.checkout_id === rows.checkout.id;
  const goOn = (): AttemptPlan => ({ block: null, needsReview: false, ...attemptTimings({ ...planInput, paymentType: rows.pm.payment_type }) });
  let plan: AttemptPlan;
  try {
    plan = await planFor(db, planInput);
  } catch (error) {
    if (await madeEarlier()) return goOn();
    throw error;
  }
  return (plan.block || plan.needsReview) && (await madeEarlier()) ? goOn() : plan;
}
