import type { CheckoutType, MerchantSettings } from '../domain/settings';
import type { PaymentType } from '../processors/types';
import { savedCardExpired } from '../processors/instruments';
import { evaluateGates, type GateInput } from './gates';
import { offeredPaymentMethods, visibleSavedMethods } from './flows';

/**
 * The per-account review criterion of the contract: a withdrawal of at least
 * `review.min_amount_cents` pauses for a person's decision while review is enabled.
 */
export function reviewRequired(settings: Pick<MerchantSettings, 'review'>, checkoutType: CheckoutType, amountCents: number): boolean {
  return checkoutType === 'withdrawal' && settings.review.enabled && amountCents >= settings.review.min_amount_cents;
}

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
  customer: GateInput['customer'];
  latestKyc?: GateInput['latestKyc'];
  /** Whether the merchant's withdrawal_destinations rule lets the money go to that method now. */
  destinationAllowed: boolean;
  /** The payment method the reviewed attempt chose, which the approved charge pays out to. */
  paymentMethod: { payment_type: PaymentType; details: { card?: { exp_year: number; exp_month: number } } };
  now: Date;
}

/**
 * Why an approval may not be carried out now, or null. A review can be decided days after its
 * attempt, and a reviewer approves the attempt, not whatever changed since: a customer restricted
 * meanwhile (for any checkout type), the KYC gate as the merchant's settings and the customer's
 * records stand now, a payment method the merchant no longer offers for this checkout, a
 * destination the withdrawal_destinations rule no longer allows, and a card past its expiry month
 * all refuse the approval. The geo gate is not re-checked: it is about where
 * the customer was when paying (a check under 30 minutes old), which a later decision cannot
 * re-establish without the customer.
 */
export function approvalRefusal(input: ApprovalCheckInput): string | null {
  const { customer } = input;
  if (customer.restriction_reason !== null) {
    return `The customer was restricted (${customer.restriction_reason}). Lift the restriction and approve again, or decline the review.`;
  }
  const gate = evaluateGates({
    checkoutType: input.checkoutType,
    environment: input.environment,
    settings: { kyc_required_for: input.settings.kyc_required_for, geo_required_for: [] },
    customer,
    ...(input.latestKyc ? { latestKyc: input.latestKyc } : {}),
    geoMaxAgeMs: 0,
    now: input.now,
  });
  if (gate.blocked) {
    return `The customer no longer passes the KYC check this merchant requires (${gate.reason}). Decline the review, or approve once the customer's KYC record is verified and matches the profile.`;
  }
  const offered = offeredPaymentMethods(input.paymentOptions, input.settings.payment_methods[input.checkoutType]);
  if (visibleSavedMethods([input.paymentMethod], offered).length === 0) {
    return `The merchant no longer offers this payment method (${input.paymentMethod.payment_type}) for ${input.checkoutType}s. Decline the review.`;
  }
  if (!input.destinationAllowed) {
    return 'This merchant pays withdrawals only to a payment method the customer has a successful deposit from, and this one has none now. Decline the review.';
  }
  if (savedCardExpired(input.paymentMethod, input.now)) {
    return 'The card the customer chose has expired since the attempt. Decline the review; the customer can start a new withdrawal with a valid card.';
  }
  return null;
}
