import { ApplicationFailure } from '@temporalio/activity';
import { evaluateAdmission, reviewRequired, type BlockReason } from '../src/checkouts/admission';
import { REVIEW_SPENT_MESSAGE } from '../src/checkouts/review-rule';
import { SANDBOX_AUTO_REFUND_AMOUNT_CENTS, isCardLike } from '../src/processors';
import type { CheckoutRow } from '../src/storage/checkouts';
import type { CustomerRow } from '../src/storage/customers';
import type { Db } from '../src/storage/db';
import { GEO_CHECK_MAX_AGE_MS, latestGeoCheck } from '../src/storage/geo-checks';
import { latestKycRecord } from '../src/storage/kyc-records';
import type { MerchantRow } from '../src/storage/merchants';
import type { PaymentMethodRow } from '../src/storage/payment-methods';
import { findCheckoutReview } from '../src/storage/reviews';
import { withdrawalDestinationAllowed } from '../src/wallet/withdrawal-destination';
import { FAILURE_TYPES } from '../workflows/contract';

/** What the workflow needs to run one attempt, read from the database and the merchant's settings. */
export interface AttemptPlan {
  /** Set when a geo or KYC gate blocks the checkout; no charge may be made. */
  block: { reason: BlockReason; restrictWith?: string } | null;
  needsReview: boolean;
  settlementMs: number;
  holdMs: number;
  /** Sandbox only: a 1.08 USD card deposit is refunded after it succeeds. */
  autoRefund: boolean;
}

/**
 * The rows the customer gates read: the customer (the restriction gate, and the KYC name match),
 * and its latest KYC record and geo check, each only when the merchant's settings require that gate
 * for the checkout's type (a gate not required passes whatever the row says).
 */
export async function loadGateRows(db: Db, merchant: MerchantRow, checkout: CheckoutRow, customer: CustomerRow) {
  const required = (types: readonly string[]) => types.includes(checkout.type);
  const [latestKyc, latest] = await Promise.all([
    required(merchant.settings.kyc_required_for) ? latestKycRecord(db, merchant.id, customer.id) : undefined,
    required(merchant.settings.geo_required_for) ? latestGeoCheck(db, merchant.id, customer.id) : undefined,
  ]);
  return { customer, latestKyc, latestGeoCheck: latest };
}
export type GateRows = Awaited<ReturnType<typeof loadGateRows>>;

/**
 * What one attempt needs, from rows the caller already loaded: the admission policy for a wallet
 * attempt (src/checkouts/admission.ts: restriction, KYC, geo, method, destination, expiry, the
 * review threshold and the one-review rule, so an approval can never be reused by a later
 * attempt of another amount or method), and the sandbox's timings. A gate about the customer
 * blocks the checkout; any other refusal refuses this attempt only.
 */
export async function planFor(
  db: Db,
  input: { checkout: CheckoutRow; merchant: MerchantRow; gateRows: GateRows; pm: PaymentMethodRow; amountCents: number },
): Promise<AttemptPlan> {
  const { checkout, merchant, pm } = input;
  const needsReview = reviewRequired(merchant.settings, checkout.type, input.amountCents);
  const decision = evaluateAdmission({
    entry: 'wallet_attempt',
    checkoutType: checkout.type,
    environment: merchant.environment,
    settings: merchant.settings,
    ...input.gateRows,
    geoMaxAgeMs: GEO_CHECK_MAX_AGE_MS,
    paymentOptions: checkout.payment_options,
    paymentMethod: pm,
    destinationAllowed: await withdrawalDestinationAllowed(db, merchant, checkout, pm),
    amountCents: input.amountCents,
    reviewExists: needsReview && (await findCheckoutReview(db, checkout.id)) !== undefined,
    now: new Date(),
  });
  const timings = attemptTimings({ ...input, paymentType: pm.payment_type });
  if (decision.admitted) return { block: null, needsReview: decision.needsReview, ...timings };
  const { refusal } = decision;
  if (refusal.blocksCheckout) {
    // Only the customer gates block, and each answers a BlockReason.
    const block = { reason: refusal.reason as BlockReason, ...(refusal.restrictWith ? { restrictWith: refusal.restrictWith } : {}) };
    return { block, needsReview: false, ...timings };
  }
  if (refusal.reason === 'review_spent') throw ApplicationFailure.nonRetryable(REVIEW_SPENT_MESSAGE, FAILURE_TYPES.reviewSpent);
  throw ApplicationFailure.nonRetryable(`the admission policy refused the attempt (${refusal.reason})`, FAILURE_TYPES.admissionRefused);
}

/** The sandbox's timings and auto-refund of an attempt: what its plan says besides the gates and the review rule. */
export function attemptTimings(input: { checkout: CheckoutRow; merchant: MerchantRow; paymentType: string | undefined; amountCents: number }): Omit<AttemptPlan, 'block' | 'needsReview'> {
  const s = input.merchant.settings;
  const sandbox = input.merchant.environment === 'sandbox';
  return {
    settlementMs: sandbox ? s.sandbox_settlement_seconds * 1000 : 0,
    holdMs: sandbox ? s.sandbox_hold_seconds * 1000 : 0,
    autoRefund: sandbox && input.checkout.type === 'deposit' && input.amountCents === SANDBOX_AUTO_REFUND_AMOUNT_CENTS && isCardLike(input.paymentType),
  };
}
