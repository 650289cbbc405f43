import { ValidationError } from '../http/errors';
import type { CheckoutRow } from '../storage/checkouts';
import type { Db } from '../storage/db';
import type { MerchantRow } from '../storage/merchants';
import { hasSucceededDepositFrom, type PaymentMethodRow } from '../storage/payment-methods';

/**
 * Whoever holds a withdrawal's link picks where the money goes. A merchant with
 * `withdrawal_destinations: previously_deposited` only pays out to an instrument (by
 * fingerprint) this customer has already deposited from successfully; checked before any
 * charge or review exists.
 */
export async function assertWithdrawalDestination(db: Db, merchant: MerchantRow, checkout: CheckoutRow, method: Pick<PaymentMethodRow, 'fingerprint'>): Promise<void> {
  if (await withdrawalDestinationAllowed(db, merchant, checkout, method)) return;
  throw new ValidationError(
    'This payment method cannot receive withdrawals.',
    'Withdrawals go only to a payment method this customer has already used for a successful deposit; choose one of those.',
  );
}

/**
 * The rule itself, as the merchant's setting and the customer's deposits stand now: also checked
 * when a review is approved (a deposit returned or refunded since no longer qualifies its instrument).
 */
export async function withdrawalDestinationAllowed(db: Db, merchant: MerchantRow, checkout: CheckoutRow, method: Pick<PaymentMethodRow, 'fingerprint'>): Promise<boolean> {
  if (checkout.type !== 'withdrawal') return true;
  // Rows written before the setting existed read as the default, `any`.
  if ((merchant.settings.withdrawal_destinations ?? 'any') !== 'previously_deposited') return true;
  return hasSucceededDepositFrom(db, merchant.id, checkout.customer_id, method.fingerprint);
}
