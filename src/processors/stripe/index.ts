// The Stripe connector: card deposits as PaymentIntents and refunds as Stripe Refunds, with the
// merchant's own secret key. Cards are tokenized into Stripe PaymentMethods on the server (see the
// PCI note in docs/deployment.md); Stripe decides every outcome, and its ids are kept as ours.
import Stripe from 'stripe';
import { checkInstrument } from '../instruments';
import { InvalidPaymentMethod, ProcessorUnavailable, type CardBrand, type Processor, type RefundOutcome, type SettlementOutcome } from '../types';
import { failure, failureCodeFor, isStripeError, outcomeOfError, outcomeOfPaymentIntent, RETRYABLE_STRIPE_ERRORS } from './outcomes';

export { STRIPE_FAILURE_MESSAGES, isStripeError, outcomeOfPaymentIntent } from './outcomes';

/** Where stripe-node sends its requests: Stripe's API unless set (stripe-mock in tests). */
export interface StripeApiAddress {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

export interface StripeConnectorOptions {
  secretKey: string;
  api?: StripeApiAddress;
  /** stripe-node's HTTP client: its own by default; tests may wrap it to answer as Stripe documents. */
  httpClient?: Stripe.HttpClient;
  now?: () => Date;
}

/** The merchant's key decides the mode: Stripe test mode for sandbox merchants, live mode for production ones. */
export const STRIPE_KEY_PREFIX = { sandbox: 'sk_test_', production: 'sk_live_' } as const;

const CURRENCY = 'usd';
const BRANDS: ReadonlySet<string> = new Set<CardBrand>(['visa', 'mastercard', 'amex', 'discover']);
const FUNDING = new Set(['credit', 'debit', 'prepaid']);

/** stripe-node with our retry rules: none of its own (the activity's retry preset decides), our address. */
export function stripeClient(options: StripeConnectorOptions): Stripe {
  return new Stripe(options.secretKey, {
    maxNetworkRetries: 0,
    timeout: 10_000,
    telemetry: false,
    ...(options.api ?? {}),
    ...(options.httpClient ? { httpClient: options.httpClient } : {}),
  });
}

/** A Stripe error from a call that is not a charge: retryable ones become ProcessorUnavailable. */
function unavailable(error: unknown): never {
  if (isStripeError(error)) {
    throw new ProcessorUnavailable('stripe', error.type, error.message, RETRYABLE_STRIPE_ERRORS.has(error.type));
  }
  throw error;
}

export function createStripeProcessor(options: StripeConnectorOptions): Processor {
  const stripe = stripeClient(options);
  const now = options.now ?? (() => new Date());

  async function paymentIntentOf(processorChargeId: string): Promise<Stripe.PaymentIntent> {
    if (processorChargeId.startsWith('pi_')) return stripe.paymentIntents.retrieve(processorChargeId, { expand: ['latest_charge'] });
    const charge = await stripe.charges.retrieve(processorChargeId, { expand: ['payment_intent'] });
    const intent = charge.payment_intent;
    if (!intent || typeof intent === 'string') throw new ProcessorUnavailable('stripe', 'no_payment_intent', `charge ${charge.id} has no PaymentIntent`, false);
    return { ...intent, latest_charge: charge };
  }

  return {
    name: 'stripe',
    supportsRefunds: true,

    async tokenize(input, fingerprintKey) {
      const checked = checkInstrument(input, fingerprintKey, now());
      if (checked.type !== 'card' || input.type !== 'card') {
        throw new InvalidPaymentMethod('unsupported_payment_type', 'Only cards can be paid through Stripe here.');
      }
      let method: Stripe.PaymentMethod;
      try {
        const { number, exp_month, exp_year, cvc } = input.card;
        method = await stripe.paymentMethods.create({ type: 'card', card: { number, exp_month, exp_year, cvc } });
      } catch (error) {
        if (isStripeError(error) && error.type === 'StripeCardError') {
          const code = error.code === 'incorrect_cvc' || error.code === 'invalid_cvc' ? 'invalid_cvc' : error.code === 'expired_card' || error.code?.startsWith('invalid_expiry') ? 'invalid_expiry' : 'invalid_number';
          throw new InvalidPaymentMethod(code, error.message);
        }
        return unavailable(error);
      }
      const card = method.card;
      return {
        payment_type: 'card',
        fingerprint: checked.fingerprint,
        processor_token: method.id,
        details: {
          card: {
            brand: card && BRANDS.has(card.brand) ? (card.brand as CardBrand) : checked.card.brand,
            last4: checked.card.digits.slice(-4),
            exp_month: checked.card.exp_month,
            exp_year: checked.card.exp_year,
            ...(card && FUNDING.has(card.funding) ? { funding: card.funding as 'credit' | 'debit' | 'prepaid' } : {}),
          },
        },
      };
    },

    async charge(request) {
      const key = request.idempotency_key;
      if (request.payment_type !== 'card') {
        return { kind: 'failed', processor_charge_id: key ?? 'stripe_unsupported', avs_result: null, cvv_result: null, network_authorization_code: null, threeds: null, ...failure('processing_error') };
      }
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.amount_cents,
            currency: CURRENCY,
            payment_method: request.token,
            allowed_payment_method_types: ['card'],
            confirm: true,
            // A renewal charges a saved card without the customer: Stripe's off-session payment.
            // With the customer present, 3D Secure is a redirect to the issuer's page and back to ours.
            ...(request.merchant_initiated ? { off_session: true } : request.return_url ? { return_url: request.return_url } : {}),
            ...(key ? { metadata: { charge_id: key } } : {}),
            expand: ['latest_charge'],
          },
          key ? { idempotencyKey: key } : undefined,
        );
        return outcomeOfPaymentIntent(intent);
      } catch (error) {
        return outcomeOfError(error, key ?? request.token);
      }
    },

    async payout() {
      // Money to a customer's card needs Stripe Connect; the settings refuse card withdrawals on Stripe.
      return {
        kind: 'failed',
        processor_charge_id: 'stripe_payout_unsupported',
        avs_result: null,
        cvv_result: null,
        network_authorization_code: null,
        threeds: null,
        failure_code: 'processing_error',
        failure_message: 'Payouts to cards are not possible through Stripe.',
      };
    },

    async settle(request): Promise<SettlementOutcome> {
      let intent: Stripe.PaymentIntent;
      try {
        intent = await paymentIntentOf(request.processor_charge_id);
      } catch (error) {
        return unavailable(error);
      }
      if (intent.status === 'processing') throw new ProcessorUnavailable('stripe', 'processing', `${intent.id} is still processing`, true);
      // 3D Secure the customer did not complete by the time the charge settles.
      if (intent.status === 'requires_action') return { kind: 'failed', ...failure('authentication_required') };
      const outcome = outcomeOfPaymentIntent(intent);
      return outcome.kind === 'succeeded' ? { kind: 'succeeded' } : { kind: 'failed', failure_code: outcome.failure_code ?? 'card_declined', failure_message: outcome.failure_message ?? '' };
    },

    async refund(request): Promise<RefundOutcome> {
      const target = request.processor_charge_id.startsWith('pi_') ? { payment_intent: request.processor_charge_id } : { charge: request.processor_charge_id };
      // The charge's id keys its PaymentIntent; its refund (one per charge) gets a key of its own.
      const key = `${request.idempotency_key ?? request.processor_charge_id}:refund`;
      try {
        const refund = await stripe.refunds.create({ ...target, amount: request.amount_cents, metadata: { charge_id: request.idempotency_key ?? '' } }, { idempotencyKey: key });
        if (refund.status === 'failed' || refund.status === 'canceled') return { ok: false, responsetext: refund.failure_reason ?? `Stripe answered the refund ${refund.status}.` };
        return { ok: true, processor_refund_id: refund.id };
      } catch (error) {
        // Refused for good (already refunded, a refused key, a key conflict): the refund fails with Stripe's reason.
        if (isStripeError(error) && !RETRYABLE_STRIPE_ERRORS.has(error.type)) return { ok: false, responsetext: error.message };
        return unavailable(error);
      }
    },

    async lookupCharge(idempotencyKey) {
      let found: Stripe.ApiSearchResult<Stripe.PaymentIntent>;
      try {
        found = await stripe.paymentIntents.search({ query: `metadata['charge_id']:'${idempotencyKey.replace(/'/g, '')}'`, expand: ['data.latest_charge'] });
      } catch (error) {
        return unavailable(error);
      }
      const intent = found.data.find((candidate) => candidate.metadata?.charge_id === idempotencyKey);
      return intent ? { seen: true, outcome: outcomeOfPaymentIntent(intent) } : { seen: false };
    },
  };
}

/** The Stripe key's mode must be the merchant's environment's: test keys for sandbox merchants, live keys for production ones. */
export function stripeKeyFits(secretKey: string, environment: 'sandbox' | 'production'): boolean {
  return secretKey.startsWith(STRIPE_KEY_PREFIX[environment]);
}

export { failureCodeFor };
