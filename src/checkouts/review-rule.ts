import type { CheckoutType, MerchantSettings } from '../domain/settings';

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
