// Who may be charged: every gate a new charge passes, in one place, for every entry point that
// creates one. The gates that read rows are pure functions of rows the entry point loaded once;
// the three that guard a write (velocity, the attempt cap, the deadline) live in the storage
// statement that makes the write, so no race slips between the check and the charge.
import type { CheckoutType, MerchantSettings } from '../domain/settings';
import { KYC_NAME_MISMATCH } from '../customers/restrictions';
import { savedCardExpired } from '../processors/instruments';
import type { PaymentType } from '../processors/types';
import { offeredPaymentMethods, visibleSavedMethods } from './flows';

/**
 * The ways a new charge comes to exist. A wallet attempt pays with details typed in or with a
 * saved method (one path, the same gates); an approved review creates its attempt's charge; a
 * subscription renewal charges the saved method (the sandbox test clock's advance reaches it
 * through the subscription's workflow). No processor-simulator move creates a charge: it moves
 * existing ones along the state table.
 */
export const ENTRY_POINTS = ['wallet_attempt', 'review_approval', 'renewal'] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

/** The gates, in the order they are evaluated. */
export const GATES = [
  'restriction',
  'kyc',
  'geo',
  'method_offered',
  'withdrawal_destination',
  'card_expiry',
  'velocity',
  'attempt_cap',
  'review_threshold',
  'one_review',
  'deadline',
] as const;
export type Gate = (typeof GATES)[number];

/** Why a checkout was blocked by a gate about the customer; carried in checkout.terminally_failed as `reason`. */
export const BLOCK_REASONS = ['customer_restricted', 'kyc_not_verified', 'kyc_name_mismatch', 'geo_check_missing', 'geo_check_stale', 'geo_check_failed'] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

export type RefusalReason = BlockReason | 'method_not_offered' | 'destination_not_allowed' | 'card_expired' | 'review_spent';

export interface AdmissionRefusal {
  gate: Gate;
  reason: RefusalReason;
  /** Restrict the customer with this reason code in the refusal's commit (a KYC name mismatch in production). */
  restrictWith?: string;
  /** The checkout is blocked for good (checkout.terminally_failed): the gate is about the customer, not this attempt. */
  blocksCheckout: boolean;
}

export type AdmissionDecision = { admitted: true; needsReview: boolean } | { admitted: false; refusal: AdmissionRefusal };

/** The rows the gates read, loaded once by the entry point. */
export interface AdmissionFacts {
  entry: EntryPoint;
  checkoutType: CheckoutType;
  environment: 'sandbox' | 'production';
  settings: Pick<MerchantSettings, 'kyc_required_for' | 'geo_required_for' | 'payment_methods' | 'review'>;
  customer: { first_name: string | null; last_name: string | null; restriction_reason: string | null };
  /** The customer's most recent KYC record (an unverified newer one hides an older verified one). */
  latestKyc?: { first_name: string; last_name: string; verified: boolean } | undefined;
  latestGeoCheck?: { passed: boolean; checked_at: Date } | undefined;
  geoMaxAgeMs: number;
  /** The checkout's own payment_options (null: every enabled method). */
  paymentOptions: readonly string[] | null;
  /** The method the charge would pay from or to. */
  paymentMethod: { payment_type: PaymentType; details: { card?: { exp_year: number; exp_month: number } } };
  /** Whether the merchant's withdrawal_destinations rule lets the money go to that method now. */
  destinationAllowed: boolean;
  amountCents: number;
  /** Whether the checkout already has its one review; read only when the review threshold is met. */
  reviewExists: boolean;
  now: Date;
}

type Check = (facts: AdmissionFacts) => Omit<AdmissionRefusal, 'gate' | 'blocksCheckout'> | null;

interface GateRule {
  gate: Gate;
  /** The entry points the gate applies to (why the others are exempt: see ADMISSION_POLICY). */
  entries: readonly EntryPoint[];
  /** Over the loaded facts, or, for a gate that guards a write, the storage statement that enforces it. */
  check: Check | { enforcedBy: string };
  blocksCheckout?: true;
}

const ALL: readonly EntryPoint[] = ENTRY_POINTS;
const CUSTOMER_PRESENT: readonly EntryPoint[] = ['wallet_attempt'];
const CHOSEN_BY_CUSTOMER: readonly EntryPoint[] = ['wallet_attempt', 'review_approval'];

/** Names compare as people write them: case, accents' spacing and surrounding blanks aside. */
function sameName(a: string | null, b: string | null): boolean {
  const norm = (s: string | null) => (s ?? '').normalize('NFKC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en-US');
  return norm(a) === norm(b);
}

const kyc: Check = (f) => {
  if (!f.settings.kyc_required_for.includes(f.checkoutType)) return null;
  if (!f.latestKyc || !f.latestKyc.verified) return { reason: 'kyc_not_verified' };
  const matches = sameName(f.latestKyc.first_name, f.customer.first_name) && sameName(f.latestKyc.last_name, f.customer.last_name);
  // The name match is a production rule: sandbox customers are made up.
  if (f.environment === 'production' && !matches) return { reason: 'kyc_name_mismatch', restrictWith: KYC_NAME_MISMATCH };
  return null;
};

const geo: Check = (f) => {
  if (!f.settings.geo_required_for.includes(f.checkoutType)) return null;
  const check = f.latestGeoCheck;
  if (!check) return { reason: 'geo_check_missing' };
  // Valid while under 30 minutes old, the same rule the device-ping cache uses.
  if (f.now.getTime() - check.checked_at.getTime() >= f.geoMaxAgeMs) return { reason: 'geo_check_stale' };
  return check.passed ? null : { reason: 'geo_check_failed' };
};

const reviewNeeded = (f: Pick<AdmissionFacts, 'checkoutType' | 'amountCents'> & { settings: Pick<MerchantSettings, 'review'> }) => f.checkoutType === 'withdrawal' && f.settings.review.enabled && f.amountCents >= f.settings.review.min_amount_cents;

/**
 * The policy as data. A restriction applies to every entry point and checkout type: it stops
 * every new charge of the customer until it is lifted. The geo gate needs the customer at the
 * device, so only an attempt can pass it; an approval or a renewal happens without the customer.
 * A renewal charges the method the customer agreed to at sign-up, so the merchant's list of
 * offered methods does not stop it (withdrawal rules do not apply to a deposit), nor does the
 * card's printed expiry: a real processor answers for the card it holds, whose expiry the card
 * networks may have updated. The review gates concern withdrawals a customer starts; an approval
 * is the review's own outcome.
 */
export const ADMISSION_POLICY: readonly GateRule[] = [
  // The charge INSERT of an attempt or an approval (insertChargeWhileLive) asserts it once more
  // under a lock on the customer, so a restriction committed after this check cannot be overtaken.
  { gate: 'restriction', entries: ALL, blocksCheckout: true, check: (f) => (f.customer.restriction_reason === null ? null : { reason: 'customer_restricted' }) },
  { gate: 'kyc', entries: ALL, blocksCheckout: true, check: kyc },
  { gate: 'geo', entries: CUSTOMER_PRESENT, blocksCheckout: true, check: geo },
  {
    gate: 'method_offered',
    entries: CHOSEN_BY_CUSTOMER,
    check: (f) => {
      const offered = offeredPaymentMethods(f.paymentOptions, f.settings.payment_methods[f.checkoutType]);
      return visibleSavedMethods([f.paymentMethod], offered).length === 0 ? { reason: 'method_not_offered' } : null;
    },
  },
  { gate: 'withdrawal_destination', entries: CHOSEN_BY_CUSTOMER, check: (f) => (f.checkoutType !== 'withdrawal' || f.destinationAllowed ? null : { reason: 'destination_not_allowed' }) },
  { gate: 'card_expiry', entries: CHOSEN_BY_CUSTOMER, check: (f) => (savedCardExpired(f.paymentMethod, f.now) ? { reason: 'card_expired' } : null) },
  { gate: 'velocity', entries: CUSTOMER_PRESENT, check: { enforcedBy: 'logAttempt (src/storage/attempt-log.ts), in the commit that admits the attempt' } },
  { gate: 'attempt_cap', entries: CUSTOMER_PRESENT, check: { enforcedBy: 'admitAttempt (src/storage/checkouts.ts), a compare-and-set on the checkout' } },
  // Not a refusal: the attempt waits for a person's decision instead of being charged.
  { gate: 'review_threshold', entries: CUSTOMER_PRESENT, check: () => null },
  { gate: 'one_review', entries: CUSTOMER_PRESENT, check: (f) => (reviewNeeded(f) && f.reviewExists ? { reason: 'review_spent' } : null) },
  { gate: 'deadline', entries: CHOSEN_BY_CUSTOMER, check: { enforcedBy: 'insertChargeWhileLive (src/storage/charges.ts), by the database clock in the charge INSERT' } },
];

/** Whether a gate applies to an entry point at all (it may still pass the facts it reads). */
export function gateApplies(gate: Gate, entry: EntryPoint): boolean {
  return ADMISSION_POLICY.some((rule) => rule.gate === gate && rule.entries.includes(entry));
}

/**
 * The admission decision for one new charge: the first gate, in policy order, that refuses it, or
 * admitted (and whether a review must decide first). Gates enforced by a storage statement are
 * not evaluated here; the entry point's write enforces them.
 */
export function evaluateAdmission(facts: AdmissionFacts): AdmissionDecision {
  for (const rule of ADMISSION_POLICY) {
    if (!rule.entries.includes(facts.entry) || typeof rule.check !== 'function') continue;
    const refusal = rule.check(facts);
    if (refusal) return { admitted: false, refusal: { gate: rule.gate, blocksCheckout: rule.blocksCheckout === true, ...refusal } };
  }
  return { admitted: true, needsReview: gateApplies('review_threshold', facts.entry) && reviewNeeded(facts) };
}

/**
 * The per-account review criterion of the contract: a withdrawal of at least
 * `review.min_amount_cents` pauses for a person's decision while review is enabled.
 */
export function reviewRequired(settings: Pick<MerchantSettings, 'review'>, checkoutType: CheckoutType, amountCents: number): boolean {
  return reviewNeeded({ settings, checkoutType, amountCents });
}

/**
 * How a refused renewal is recorded: its charge fails at creation with this failure_code and never
 * reaches the processor, and the subscription is dunned as for any failed renewal, so a retry on
 * the merchant's schedule charges again once the customer passes (a restriction lifted, a KYC
 * record verified).
 */
export function renewalFailure(refusal: AdmissionRefusal): { failure_code: string; failure_message: string } {
  switch (refusal.reason) {
    case 'customer_restricted':
      return { failure_code: 'customer_restricted', failure_message: 'The customer is restricted: no new charge is made until the restriction is lifted.' };
    case 'kyc_name_mismatch':
      return { failure_code: 'kyc_name_mismatch', failure_message: "The verified KYC name differs from the customer's profile: the customer is restricted." };
    default:
      return { failure_code: 'kyc_not_verified', failure_message: 'The customer has no verified KYC record, which this merchant requires for deposits.' };
  }
}
