// Stripe's answers as the processor interface's outcomes: a PaymentIntent's status, its Charge's
// card-network results, and Stripe's errors (declines, and the API errors a retry may or may not cure).
import type Stripe from 'stripe';
import { ProcessorUnavailable, type ChargeOutcome, type NextAction, type ThreeDSResult } from '../types';

/**
 * Stripe's decline codes (and card error codes) that the charge's failure_code keeps as they are,
 * with a message the customer may read. Any other decline is `card_declined`.
 */
export const STRIPE_FAILURE_MESSAGES = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The payment method has insufficient funds.',
  expired_card: 'The card has expired.',
  incorrect_cvc: "The card's security code is incorrect.",
  incorrect_number: 'The card number is incorrect.',
  lost_card: 'The card was declined.',
  stolen_card: 'The card was declined.',
  fraudulent: 'The card was declined.',
  card_velocity_exceeded: 'The card has exceeded its spending limit.',
  authentication_required: 'The card requires authentication (3D Secure), which was not completed.',
  processing_error: 'The payment could not be processed.',
} as const;
export type StripeFailureCode = keyof typeof STRIPE_FAILURE_MESSAGES;

function isFailureCode(code: string | null | undefined): code is StripeFailureCode {
  return typeof code === 'string' && Object.hasOwn(STRIPE_FAILURE_MESSAGES, code);
}

/** The failure_code for Stripe's decline: its decline_code when we keep it, else its error code, else card_declined. */
export function failureCodeFor(declineCode: string | null | undefined, code: string | null | undefined): StripeFailureCode {
  if (isFailureCode(declineCode)) return declineCode;
  if (isFailureCode(code)) return code;
  return 'card_declined';
}

export function failure(code: StripeFailureCode) {
  return { failure_code: code, failure_message: STRIPE_FAILURE_MESSAGES[code] };
}

type CardChecks = Stripe.Charge.PaymentMethodDetails.Card.Checks;
type CheckResult = string | null | undefined;

/** Stripe's address checks as one AVS result letter (Y both match, A street only, Z postal code only, N neither, U unavailable). */
export function avsResult(checks: CardChecks | null | undefined): string | null {
  const line1: CheckResult = checks?.address_line1_check;
  const postal: CheckResult = checks?.address_postal_code_check;
  if (!line1 && !postal) return null;
  if (line1 === 'pass' && postal === 'pass') return 'Y';
  if (line1 === 'pass') return 'A';
  if (postal === 'pass') return 'Z';
  if (line1 === 'fail' || postal === 'fail') return 'N';
  return 'U';
}

/** Stripe's cvc_check as a CVV result letter (M match, N no match, P not processed, U unavailable). */
export function cvvResult(checks: CardChecks | null | undefined): string | null {
  switch (checks?.cvc_check) {
    case 'pass':
      return 'M';
    case 'fail':
      return 'N';
    case 'unchecked':
      return 'P';
    case 'unavailable':
      return 'U';
    default:
      return null;
  }
}

export function threedsResult(card: Stripe.Charge.PaymentMethodDetails.Card | null | undefined): ThreeDSResult | null {
  const secure = card?.three_d_secure;
  if (!secure?.version) return null;
  return { version: secure.version, authenticated: secure.result === 'authenticated', eci: secure.electronic_commerce_indicator ?? '' };
}

/** The card-network fields of an outcome, read from Stripe's Charge (none before one exists). */
export function cardFields(charge: Stripe.Charge | string | null | undefined) {
  const card = typeof charge === 'object' && charge ? charge.payment_method_details?.card : undefined;
  return {
    avs_result: avsResult(card?.checks),
    cvv_result: cvvResult(card?.checks),
    network_authorization_code: card?.authorization_code ?? null,
    threeds: threedsResult(card),
  };
}

function chargeId(charge: Stripe.Charge | string | null | undefined): string | undefined {
  if (typeof charge === 'string') return charge;
  return charge?.id;
}

/** The page 3D Secure sends the customer to, when Stripe answered one (a confirmation with a return_url). */
function redirectOf(intent: Stripe.PaymentIntent): { next_action?: NextAction } {
  const url = intent.next_action?.type === 'redirect_to_url' ? intent.next_action.redirect_to_url?.url : null;
  return url ? { next_action: { type: 'redirect_to_url', url } } : {};
}

/**
 * A confirmed PaymentIntent as an outcome. Its Charge's id is the processor_charge_id (the
 * PaymentIntent's while no Charge exists, as during 3D Secure); `requires_action` (3D Secure) and
 * `processing` are pending; `requires_payment_method` after a confirmation is a decline.
 */
export function outcomeOfPaymentIntent(intent: Stripe.PaymentIntent): ChargeOutcome {
  const base = { processor_charge_id: chargeId(intent.latest_charge) ?? intent.id, ...cardFields(intent.latest_charge) };
  switch (intent.status) {
    case 'succeeded':
      return { ...base, kind: 'succeeded' };
    case 'requires_action':
      return { ...base, kind: 'pending', ...redirectOf(intent) };
    case 'processing':
    case 'requires_capture':
      return { ...base, kind: 'pending' };
    default: {
      const error = intent.last_payment_error;
      return { ...base, kind: 'failed', ...failure(error ? failureCodeFor(error.decline_code, error.code) : 'card_declined') };
    }
  }
}

/** The Stripe errors a retry with the same idempotency key may cure, by stripe-node's error type. */
export const RETRYABLE_STRIPE_ERRORS: ReadonlySet<string> = new Set(['StripeRateLimitError', 'StripeConnectionError', 'StripeAPIError']);

export function isStripeError(error: unknown): error is Stripe.errors.StripeError {
  const type: unknown = error instanceof Error ? (error as unknown as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type.startsWith('Stripe');
}

/**
 * What a Stripe error means for a charge: a decline is a failed outcome; a rate limit, a lost
 * connection or Stripe's own 5xx throws ProcessorUnavailable (retryable: the call carries its
 * idempotency key); authentication, permission, idempotency conflicts and invalid requests are
 * not cured by a retry, so the charge fails with processing_error. Never rethrown as it is.
 */
export function outcomeOfError(error: unknown, fallbackId: string): ChargeOutcome {
  if (!isStripeError(error)) throw error;
  if (RETRYABLE_STRIPE_ERRORS.has(error.type)) throw new ProcessorUnavailable('stripe', error.type, error.message, true);
  const raw = error.raw as { payment_intent?: Stripe.PaymentIntent; charge?: string } | undefined;
  const base = {
    processor_charge_id: raw?.charge ?? raw?.payment_intent?.id ?? fallbackId,
    ...cardFields(undefined),
  };
  if (error.type === 'StripeCardError') return { ...base, kind: 'failed', ...failure(failureCodeFor(error.decline_code, error.code)) };
  return { ...base, kind: 'failed', ...failure('processing_error') };
}
