import type { CheckoutType, MerchantSettings } from '../domain/settings';
import { evaluateAdmission, type AdmissionFacts, type RefusalReason } from './admission';

/** A checkout has at most one review, and an approval is spent by the one charge it authorized. */
export const REVIEW_SPENT_MESSAGE = 'This checkout already used its one review.';
export function reviewSpentHint(minAmountCents: number): string {
  return `A checkout has at most one review and it was used. Withdraw less than ${minAmountCents} cents here, or ask the merchant to start a new checkout for this amount.`;
}

/** What an approval is checked against when it is made: the rows as they stand at the decision. */
export interface ApprovalCheckInput {
  checkoutType: CheckoutType;
  environment: 'sandbox' | 'production';
  settings: Pick<MerchantSettings, 'kyc_required_for' | 'payment_methods'>;
  /** The checkout's own payment_options (null: every enabled method). */
  paymentOptions: readonly string[] | null;
  customer: AdmissionFacts['customer'];
  latestKyc?: AdmissionFacts['latestKyc'];
  /** Whether the merchant's withdrawal_destinations rule lets the money go to that method now. */
  destinationAllowed: boolean;
  /** The payment method the reviewed attempt chose, which the approved charge pays out to. */
  paymentMethod: AdmissionFacts['paymentMethod'];
  now: Date;
}

/** What the reviewer is told for each refusal an approval can meet (the gates of src/checkouts/admission.ts). */
function approvalRefusalMessage(reason: RefusalReason, input: ApprovalCheckInput): string {
  switch (reason) {
    case 'customer_restricted':
      return `The customer was restricted (${input.customer.restriction_reason}). Lift the restriction and approve again, or decline the review.`;
    case 'method_not_offered':
      return `The merchant no longer offers this payment method (${input.paymentMethod.payment_type}) for ${input.checkoutType}s. Decline the review.`;
    case 'destination_not_allowed':
      return 'This merchant pays withdrawals only to a payment method the customer has a successful deposit from, and this one has none now. Decline the review.';
    case 'card_expired':
      return 'The card the customer chose has expired since the attempt. Decline the review; the customer can start a new withdrawal with a valid card.';
    default:
      return `The customer no longer passes the KYC check this merchant requires (${reason}). Decline the review, or approve once the customer's KYC record is verified and matches the profile.`;
  }
}

/**
 * Why an approval may not be carried out now, or null: the admission policy for the
 * `review_approval` entry point over the rows as they stand at the decision. A review can be
 * decided days after its attempt, and a reviewer approves the attempt, not whatever changed since:
 * a customer restricted meanwhile (for any checkout type), the KYC gate as the merchant's settings
 * and the customer's records stand now, a payment method the merchant no longer offers for this
 * checkout, a destination the withdrawal_destinations rule no longer allows, and a card past its
 * expiry month all refuse the approval. The geo gate does not apply: it is about where the
 * customer was when paying (a check under 30 minutes old), which a later decision cannot
 * re-establish without the customer.
 */
export function approvalRefusal(input: ApprovalCheckInput): string | null {
  const decision = evaluateAdmission({
    entry: 'review_approval',
    checkoutType: input.checkoutType,
    environment: input.environment,
    settings: { ...input.settings, geo_required_for: [], review: { enabled: false, min_amount_cents: 1 } },
    customer: input.customer,
    latestKyc: input.latestKyc,
    geoMaxAgeMs: 0,
    paymentOptions: input.paymentOptions,
    paymentMethod: input.paymentMethod,
    destinationAllowed: input.destinationAllowed,
    amountCents: 0,
    reviewExists: true,
    now: input.now,
  });
  return decision.admitted ? null : approvalRefusalMessage(decision.refusal.reason, input);
}
