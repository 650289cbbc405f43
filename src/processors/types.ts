// The one interface every card/bank/crypto processor implements. The sandbox is the only
// implementation today; a real processor is remote, hence every call returns a Promise.
import { WALLET_METHODS, type PaymentMethodId } from '../domain/settings';

/** A token wallet's payment type is its payment method's identifier. */
export const WALLET_PAYMENT_TYPES = WALLET_METHODS;

export const PAYMENT_TYPES = ['card', 'bank_account', 'crypto_wallet', ...WALLET_PAYMENT_TYPES] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

export type WalletPaymentType = (typeof WALLET_PAYMENT_TYPES)[number];

/** Cards and the token wallets on card rails: they carry card-only charge fields and can be refunded. */
const CARD_LIKE: ReadonlySet<string> = new Set<PaymentType>(['card', ...WALLET_PAYMENT_TYPES]);
export function isCardLike(paymentType: string | undefined): boolean {
  return paymentType !== undefined && CARD_LIKE.has(paymentType);
}

/** Maps the contract's payment_options identifiers onto the processor's payment types. */
export const PAYMENT_TYPE_FOR_METHOD = {
  credit_card: 'card',
  bank_account: 'bank_account',
  crypto: 'crypto_wallet',
  apple_pay: 'apple_pay',
  google_pay: 'google_pay',
  paypal: 'paypal',
  venmo: 'venmo',
} as const satisfies Record<PaymentMethodId, PaymentType>;

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

export interface BankAccountInput {
  routing_number: string;
  account_number: string;
  account_type: 'checking' | 'savings';
}

export interface CryptoWalletInput {
  address: string;
  network: string;
}

export type TokenizeInput =
  | { type: 'card'; card: CardInput }
  | { type: 'bank_account'; bank_account: BankAccountInput }
  | { type: 'crypto_wallet'; crypto_wallet: CryptoWalletInput }
  | { type: WalletPaymentType; token: string };

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'other';

/** What may be stored about a payment method: never the full card or account number, nor the cvc. */
export interface TokenizedMethod {
  payment_type: PaymentType;
  /** Stable per instrument and per fingerprint key, so saved methods can be de-duplicated. */
  fingerprint: string;
  /** Opaque to the service; only the processor that issued it can charge it. */
  processor_token: string;
  details: {
    card?: {
      brand: CardBrand;
      last4: string;
      exp_month: number;
      exp_year: number;
      funding?: 'credit' | 'debit' | 'prepaid';
    };
    bank_account?: { last4: string; routing_number: string; account_type: 'checking' | 'savings' };
    crypto_wallet?: { network: string; address_last4?: string };
  };
}

export interface ThreeDSResult {
  version: string;
  authenticated: boolean;
  eci: string;
}

export interface ChargeOutcome {
  kind: 'succeeded' | 'failed' | 'pending';
  failure_code?: string;
  failure_message?: string;
  /** Always set so a pending charge can be settled; the API shows it for card charges only. */
  processor_charge_id: string;
  // Card-network results; null for bank and crypto charges.
  avs_result: string | null;
  cvv_result: string | null;
  network_authorization_code: string | null;
  threeds: ThreeDSResult | null;
  /**
   * What the customer must do before a pending charge can go on: open the processor's page (3D
   * Secure), which sends them back to the request's return_url. Only the wallet's answer shows it.
   */
  next_action?: NextAction;
}

export interface NextAction {
  type: 'redirect_to_url';
  url: string;
}

/**
 * What the processor did with the charge or payout sent with an idempotency key: nothing it knows
 * of, or the outcome it answered (the same outcome a repeated call with the key would answer).
 */
export type ChargeLookup = { seen: false } | { seen: true; outcome: ChargeOutcome };

export interface SettlementOutcome {
  kind: 'succeeded' | 'failed';
  failure_code?: string;
  failure_message?: string;
}

export type RefundOutcome = { ok: true; processor_refund_id: string } | { ok: false; responsetext: string };

interface ProcessorCall {
  token: string;
  payment_type: PaymentType;
  amount_cents: number;
  /** A real processor de-duplicates retried calls on this; pass the charge id. */
  idempotency_key?: string;
}

export interface ChargeRequest extends ProcessorCall {
  transaction_type: 'credit' | 'debit';
  /** A charge the merchant makes without the customer present (a subscription renewal), as networks distinguish. */
  merchant_initiated?: boolean;
  /** Where a processor sends the customer back after a challenge (3D Secure): the hosted checkout page. */
  return_url?: string;
}

export type PayoutRequest = ProcessorCall;

export interface SettleRequest {
  processor_charge_id: string;
  token: string;
  payment_type: PaymentType;
}

export interface RefundRequest {
  processor_charge_id: string;
  amount_cents: number;
  token: string;
  idempotency_key?: string;
}

export interface Processor {
  readonly name: string;
  readonly supportsRefunds: boolean;
  /** Throws InvalidPaymentMethod for input no charge can be made with (Luhn failure, past expiry, bad format). */
  /**
   * `environment` is the merchant's: the sandbox's test values (test cards, bank accounts ending
   * 0002, crypto addresses ending dead) have their scripted outcomes for sandbox accounts only.
   * Required, so no caller can give a production merchant the test values by leaving it out.
   */
  tokenize(input: TokenizeInput, fingerprintKey: string, environment: 'sandbox' | 'production'): Promise<TokenizedMethod>;
  /** Takes money from the customer (deposits); bank and crypto charges come back pending. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /** Final result of a pending charge or payout. */
  settle(request: SettleRequest): Promise<SettlementOutcome>;
  /** Sends money to the customer (withdrawals, once the hold was accepted). */
  payout(request: PayoutRequest): Promise<ChargeOutcome>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Asks what became of a charge or payout by the idempotency key it was sent with (the charge id),
   * without making one: how the reconciler learns the outcome of a call whose answer was lost.
   */
  lookupCharge(idempotencyKey: string): Promise<ChargeLookup>;
}

export type InvalidPaymentMethodCode =
  | 'invalid_number'
  | 'invalid_expiry'
  | 'invalid_cvc'
  | 'invalid_bank_account'
  | 'invalid_crypto_wallet'
  | 'invalid_token'
  | 'unsupported_payment_type';

/** Raised at tokenize time for payment details that no charge could succeed with, so no charge is created. */
export class InvalidPaymentMethod extends Error {
  readonly code: InvalidPaymentMethodCode;

  constructor(code: InvalidPaymentMethodCode, message: string) {
    super(message);
    this.name = 'InvalidPaymentMethod';
    this.code = code;
  }
}

/**
 * The processor could not be reached or asked us to slow down (a rate limit, a lost connection,
 * its own server error). `retryable` says whether the same call, with the same idempotency key,
 * may be made again: a retryable one is left to the activity's retry preset.
 */
export class ProcessorUnavailable extends Error {
  readonly processor: string;
  readonly code: string;
  readonly retryable: boolean;

  constructor(processor: string, code: string, message: string, retryable: boolean) {
    super(`${processor}: ${message}`);
    this.name = 'ProcessorUnavailable';
    this.processor = processor;
    this.code = code;
    this.retryable = retryable;
  }
}
