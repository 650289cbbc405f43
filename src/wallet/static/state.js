// The page's one piece of shared state: the checkout as last read, and what the customer chose.
import { money } from './format.js';

export const state = {
  /** The last answer of GET /wallet/v1/checkouts/{id}. */
  checkout: null,
  /** {kind: 'new', method} or {kind: 'saved', id, method}. */
  selection: null,
  /** True while an attempt is on its way; the form is locked meanwhile. */
  submitting: false,
  /** Settles once the location ping (when the merchant requires one) was sent or given up. */
  geoPing: Promise.resolve(),
  /** True while that ping is on its way. */
  geoPingInFlight: false,
};

/** Charges that are neither settled nor failed yet: the page waits and polls. */
export const IN_FLIGHT = ['created', 'pending', 'held'];

export function formatMoney(cents) {
  return money(cents, (state.checkout && state.checkout.currency) || 'USD');
}
