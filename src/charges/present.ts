import type { ChargeRow } from '../storage/charges';
import type { CustomerRow } from '../storage/customers';
import type { PaymentMethodRow } from '../storage/payment-methods';
import { isCardLike } from '../processors';


/** Which one of card, bank_account, crypto_wallet a payment type populates. */
function instrumentKey(paymentType: string): 'card' | 'bank_account' | 'crypto_wallet' {
  if (paymentType === 'bank_account') return 'bank_account';
  if (paymentType === 'crypto_wallet') return 'crypto_wallet';
  return 'card';
}

export function presentPaymentMethod(pm: PaymentMethodRow) {
  const key = instrumentKey(pm.payment_type);
  const instruments = { card: null, bank_account: null, crypto_wallet: null } as Record<string, unknown>;
  instruments[key] = pm.details[key] ?? null;
  return {
    id: pm.id,
    payment_type: pm.payment_type,
    created_at: pm.created_at.toISOString(),
    updated_at: pm.updated_at.toISOString(),
    saved: pm.saved,
    fingerprint: pm.fingerprint,
    ...instruments,
  };
}

export function presentChargeCustomer(c: CustomerRow) {
  return {
    id: c.id,
    internal_id: c.internal_id,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    phone_number: c.phone_number,
  };
}

/**
 * The charge as GET /api/v1/charges/{id} shows it. Card-only fields are present (maybe null)
 * on card charges; on bank and crypto charges the `threeds` key is omitted entirely and the
 * other card-only fields are null.
 */
export function presentCharge(charge: ChargeRow, customer: CustomerRow, paymentMethod: PaymentMethodRow) {
  const cardLike = isCardLike(paymentMethod.payment_type);
  return {
    id: charge.id,
    amount_cents: charge.amount_cents,
    transaction_type: charge.transaction_type,
    currency: charge.currency,
    status: charge.status,
    failure_code: charge.failure_code,
    failure_message: charge.failure_message,
    created_at: charge.created_at.toISOString(),
    updated_at: charge.updated_at.toISOString(),
    checkout_id: charge.checkout_id,
    customer: presentChargeCustomer(customer),
    payment_method: presentPaymentMethod(paymentMethod),
    avs_result: cardLike ? charge.avs_result : null,
    cvv_result: cardLike ? charge.cvv_result : null,
    network_authorization_code: cardLike ? charge.network_authorization_code : null,
    processor_charge_id: cardLike ? charge.processor_charge_id : null,
    ...(cardLike ? { threeds: charge.threeds } : {}),
  };
}

export type PresentedCharge = ReturnType<typeof presentCharge>;
