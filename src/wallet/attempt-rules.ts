import { newId } from '../domain/ids';
import { PAYMENT_METHODS, type PaymentMethodId } from '../domain/settings';
import type { AppDeps } from '../app-deps';
import { NotFoundError, ServiceUnavailableError, UnsupportedError, ValidationError } from '../http/errors';
import { checkInstrument, ConnectorNotConfigured, InvalidPaymentMethod, numberKey, ProcessorUnavailable, PAYMENT_TYPE_FOR_METHOD, SANDBOX_TEST_CARDS, savedCardExpired, type TokenizeInput } from '../processors';
import type { CheckoutRow } from '../storage/checkouts';
import type { MerchantRow } from '../storage/merchants';
import { merchantProcessor } from '../merchants/processor';
import { findPaymentMethod, insertPaymentMethod, saveOrReusePaymentMethod, type PaymentMethodRow } from '../storage/payment-methods';
import type { AttemptBody } from './attempt-schemas';
import { offeredPaymentMethods } from '../checkouts/flows';


const METHOD_FOR_TYPE = Object.fromEntries(PAYMENT_METHODS.map((m) => [PAYMENT_TYPE_FOR_METHOD[m], m])) as Record<string, PaymentMethodId>;

/**
 * The attempt's amount: the preset (fixed amount or line items total) when the flow has one,
 * otherwise the customer's pick, which is required and capped by balance_amount_cents.
 */
export function attemptAmount(checkout: CheckoutRow, requested: number | undefined): number {
  const preset = checkout.fixed_amount_cents ?? checkout.line_items_total_amount_cents;
  if (preset !== null) {
    if (requested !== undefined && requested !== preset) {
      throw new ValidationError('amount_cents does not match this checkout.', `This checkout's amount is fixed at ${preset} cents; omit amount_cents.`);
    }
    return preset;
  }
  if (requested === undefined) throw new ValidationError('amount_cents is required.', 'This checkout has no preset amount: send the amount the customer chose, in integer cents.');
  if (checkout.balance_amount_cents !== null && requested > checkout.balance_amount_cents) {
    throw new ValidationError('amount_cents is above the available balance.', `The most that can be withdrawn is ${checkout.balance_amount_cents} cents.`);
  }
  return requested;
}

function tokenizeInput(method: Exclude<AttemptBody['payment_method'], { saved_payment_method_id: string }>): TokenizeInput {
  switch (method.type) {
    case 'credit_card':
      return { type: 'card', card: method.card };
    case 'bank_account':
      return { type: 'bank_account', bank_account: method.bank_account };
    case 'crypto':
      return { type: 'crypto_wallet', crypto_wallet: method.crypto_wallet };
    default:
      return { type: method.type, token: method.token };
  }
}

/**
 * The attempt's payment method, checked but not yet tokenized or stored. `numberKey` is what the
 * velocity limits count it by (a card's number alone, see numberKey); `fingerprint` is the
 * instrument as saved methods are de-duplicated (a card's number and expiry).
 */
export type CheckedPaymentMethod =
  | { kind: 'saved'; fingerprint: string; numberKey: string; method: PaymentMethodRow }
  | { kind: 'new'; fingerprint: string; numberKey: string; input: TokenizeInput };

/**
 * Checks the payment method the attempt charges: a saved one of this customer, or new details
 * validated and fingerprinted (a Luhn failure is refused here, before any charge exists).
 * Nothing is tokenized or stored yet: that waits until the attempt is admitted.
 */
export async function checkPaymentMethod(deps: AppDeps, merchant: MerchantRow, checkout: CheckoutRow, body: AttemptBody): Promise<CheckedPaymentMethod> {
  const offered = offeredPaymentMethods(checkout.payment_options, merchant.settings.payment_methods[checkout.type]);
  const input = body.payment_method;
  if ('saved_payment_method_id' in input) {
    const saved = await findPaymentMethod(deps.db, merchant.id, input.saved_payment_method_id);
    if (!saved || !saved.saved || saved.customer_id !== checkout.customer_id) {
      throw new NotFoundError('Saved payment method not found.', 'Use one of the saved_payment_methods the wallet lists.');
    }
    assertOffered(METHOD_FOR_TYPE[saved.payment_type]!, offered);
    // An expired card is refused here, as when typed in.
    if (savedCardExpired(saved, new Date())) {
      throw new ValidationError('The card has expired.', 'Choose another payment method, or enter the card again with its new expiry date.');
    }
    // A method stored before number keys existed is counted by its fingerprint.
    return { kind: 'saved', fingerprint: saved.fingerprint, numberKey: saved.number_key ?? saved.fingerprint, method: saved };
  }
  assertOffered(input.type, offered);
  if (input.type === 'credit_card' && merchant.environment === 'production' && SANDBOX_TEST_CARDS.includes(input.card.number.replace(/[\s-]/g, ''))) {
    throw new ValidationError('Test cards cannot be used in production.', 'Use a real card, or a sandbox account for testing.');
  }
  const tokenizeRequest = tokenizeInput(input);
  try {
    const checked = checkInstrument(tokenizeRequest, deps.sealer.fingerprintKey(), new Date());
    return { kind: 'new', fingerprint: checked.fingerprint, numberKey: numberKey(deps.sealer.fingerprintKey(), checked), input: tokenizeRequest };
  } catch (error) {
    throw invalidDetails(error);
  }
}

/** A tokenize failure as an answer: bad details or a processor that cannot serve (never a 500). */
function invalidDetails(error: unknown): unknown {
  if (error instanceof InvalidPaymentMethod) return new ValidationError(error.message, `Check the payment details (${error.code}).`);
  if (error instanceof ProcessorUnavailable && error.retryable) return new ServiceUnavailableError('The card processor is briefly unavailable.', 'Retry the payment in a moment.');
  if (error instanceof ProcessorUnavailable || error instanceof ConnectorNotConfigured) {
    return new ValidationError('The card processor cannot take this payment.', "The merchant's card processor refused the request (its credentials); the merchant must correct its settings.");
  }
  return error;
}

/**
 * Once the attempt is admitted: tokenizes new details with the processor and stores the method.
 * `created` says whether this attempt wrote the row (not a saved method it reused).
 */
export async function storePaymentMethod(
  deps: AppDeps,
  merchant: MerchantRow,
  checkout: CheckoutRow,
  checked: CheckedPaymentMethod,
  save: boolean,
): Promise<{ method: PaymentMethodRow; created: boolean }> {
  if (checked.kind === 'saved') return { method: checked.method, created: false };
  let tokenized;
  try {
    tokenized = await merchantProcessor(merchant, deps).tokenize(checked.input, deps.sealer.fingerprintKey(), merchant.environment);
  } catch (error) {
    throw invalidDetails(error);
  }
  const row = {
    id: newId('paymentMethod'),
    merchant_id: merchant.id,
    customer_id: checkout.customer_id,
    payment_type: tokenized.payment_type,
    details: tokenized.details,
    fingerprint: tokenized.fingerprint,
    number_key: checked.numberKey,
    processor_token: tokenized.processor_token,
  };
  const method = save ? await saveOrReusePaymentMethod(deps.db, row) : await insertPaymentMethod(deps.db, { ...row, saved: false });
  return { method, created: method.id === row.id };
}

function assertOffered(method: PaymentMethodId, offered: PaymentMethodId[]): void {
  if (!offered.includes(method)) {
    throw new UnsupportedError(`Payment method ${method} is not offered for this checkout.`, `Offered: ${offered.join(', ')}.`);
  }
}
