import type { ChargeRow } from '../storage/charges';
import type { CustomerRow } from '../storage/customers';
import type { PaymentMethodRow } from '../storage/payment-methods';
import { isCardLike, type NextAction } from '../processors';


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

/** The charge's own fields its API shape shows; dates as rows hold them, or as ISO strings (a workflow's answer). */
export type PresentableCharge = Pick<ChargeRow, (typeof PRESENTED_CHARGE_FIELDS)[number]> & { created_at: Date | string; updated_at: Date | string };

export const PRESENTED_CHARGE_FIELDS = [
  'id', 'amount_cents', 'transaction_type', 'currency', 'status', 'failure_code', 'failure_message', 'checkout_id',
  'avs_result', 'cvv_result', 'network_authorization_code', 'processor_charge_id', 'threeds',
] as const;

const iso = (date: Date | string): string => (typeof date === 'string' ? date : date.toISOString());

/**
 * A charge's presentable fields as a workflow carries them (JSON: dates as ISO strings), with what
 * the customer must do next for a pending one (the wallet's answer only: never stored).
 */
export type ChargeAnswer = PresentableCharge & { created_at: string; updated_at: string; next_action?: NextAction };

/** The charge's presentable fields, for an activity's answer to its workflow (and on to the wallet). */
export function chargeAnswer(charge: ChargeRow): ChargeAnswer {
  const fields = Object.fromEntries(PRESENTED_CHARGE_FIELDS.map((f) => [f, charge[f]])) as Pick<ChargeRow, (typeof PRESENTED_CHARGE_FIELDS)[number]>;
  return { ...fields, created_at: iso(charge.created_at), updated_at: iso(charge.updated_at) };
}

/**
 * The charge as GET /api/v1/charges/{id} shows it. Card-only fields are present (maybe null)
 * on card charges; on bank and crypto charges the `threeds` key is omitted entirely and the
 * other card-only fields are null.
 */
export function presentCharge(charge: PresentableCharge, customer: CustomerRow, paymentMethod: PaymentMethodRow) {
  const cardLike = isCardLike(paymentMethod.payment_type);
  return {
    id: charge.id,
    amount_cents: charge.amount_cents,
    transaction_type: charge.transaction_type,
    currency: charge.currency,
    status: charge.status,
    failure_code: charge.failure_code,
    failure_message: charge.failure_message,
    created_at: iso(charge.created_at),
    updated_at: iso(charge.updated_at),
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
