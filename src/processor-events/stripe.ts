// Stripe's events for a merchant's Stripe account: verified with the merchant's endpoint secret,
// handled once per event id, and acted on as Stripe's API says now (the object is read again,
// since Stripe does not promise the order of its events). Every move goes through the one move path.
import type Stripe from 'stripe';
import type { AppDeps } from '../app-deps';
import { allowedMovesFor, type ChargeStatus } from '../domain/charge-states';
import { ApiError, ServiceUnavailableError, ValidationError } from '../http/errors';
import { moveChargeAsProcessor } from '../charges/processor-moves';
import { refundCharge } from '../charges/refund';
import { isStripeError, outcomeOfPaymentIntent, stripeClient } from '../processors/stripe';
import { findCharge, type ChargeRow } from '../storage/charges';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { recordStripeEvent, stripeEventSeen } from '../storage/stripe-events';

export interface StripeEventAnswer {
  received: true;
  /** What the event did: moved (the charge's new status), duplicate, or ignored (with why). */
  outcome: string;
}

/** The event types that move charges; any other is acknowledged and ignored. */
export const HANDLED_STRIPE_EVENTS = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded', 'charge.dispute.created'] as const;

const noEndpoint = (merchantId: string) =>
  new ValidationError('No Stripe webhook endpoint for this merchant.', `Merchant ${merchantId} has no Stripe webhook endpoint secret: set stripe.webhook_secret in its settings.`);

export async function receiveStripeEvent(deps: AppDeps, merchantId: string, rawBody: Buffer, signature: string | undefined): Promise<StripeEventAnswer> {
  const merchant = await findMerchant(deps.db, merchantId);
  if (!merchant?.stripe_webhook_secret_sealed || !merchant.stripe_secret_key_sealed) throw noEndpoint(merchantId);
  const stripe = stripeClient({ secretKey: deps.sealer.open(merchant.stripe_secret_key_sealed), ...(deps.config.stripeApi ? { api: deps.config.stripeApi } : {}) });
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature ?? '', deps.sealer.open(merchant.stripe_webhook_secret_sealed));
  } catch (error) {
    throw new ValidationError('The Stripe-Signature does not verify.', `Stripe signs each event with the endpoint's secret (whsec_...): ${(error as Error).message}`);
  }
  if (await stripeEventSeen(deps.db, merchant.id, event.id)) return { received: true, outcome: 'duplicate' };
  const outcome = await actOn(deps, merchant, stripe, event).catch((error: unknown) => {
    // Stripe could not be read again: not a 500; Stripe delivers the event again later.
    if (isStripeError(error)) throw new ServiceUnavailableError('Stripe could not be reached to read the event\'s object.', 'Stripe retries the delivery.');
    throw error;
  });
  if (outcome.startsWith('ignored')) deps.logger.info({ merchantId: merchant.id, stripeEvent: event.id, type: event.type, outcome }, 'Stripe event moved nothing');
  await recordStripeEvent(deps.db, { id: event.id, merchant_id: merchant.id, type: event.type });
  return { received: true, outcome };
}

async function actOn(deps: AppDeps, merchant: MerchantRow, stripe: Stripe, event: Stripe.Event): Promise<string> {
  const object = event.data.object as { id?: string };
  if (!object.id) return 'ignored: no object';
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = await stripe.paymentIntents.retrieve(object.id, { expand: ['latest_charge'] });
      const charge = await ourCharge(deps, merchant, intent.metadata?.charge_id);
      if (!charge) return 'ignored: not a charge of this merchant';
      const outcome = outcomeOfPaymentIntent(intent);
      if (outcome.kind === 'pending') return 'ignored: still pending at Stripe';
      return move(deps, charge, outcome.kind, outcome);
    }
    case 'charge.refunded': {
      const stripeCharge = await stripe.charges.retrieve(object.id);
      const charge = await ourCharge(deps, merchant, await chargeIdOf(stripe, stripeCharge));
      if (!charge) return 'ignored: not a charge of this merchant';
      if (!stripeCharge.refunded) return 'ignored: partly refunded at Stripe';
      if (charge.status !== 'succeeded') return `ignored: the charge is ${charge.status}`;
      // A refund made in Stripe's dashboard is recorded like every refund (source processor).
      try {
        await refundCharge(deps, charge.id, { source: 'processor', merchantId: merchant.id });
      } catch (error) {
        if (error instanceof ApiError) return `ignored: ${error.message}`;
        throw error;
      }
      return 'moved: refunded';
    }
    case 'charge.dispute.created': {
      const dispute = await stripe.disputes.retrieve(object.id);
      const stripeCharge = typeof dispute.charge === 'string' ? await stripe.charges.retrieve(dispute.charge) : dispute.charge;
      const charge = await ourCharge(deps, merchant, await chargeIdOf(stripe, stripeCharge));
      if (!charge) return 'ignored: not a charge of this merchant';
      return move(deps, charge, 'returned');
    }
    default:
      return `ignored: ${event.type} is not handled`;
  }
}

/** Our charge id on Stripe's Charge: its own metadata, else its PaymentIntent's (where the connector wrote it). */
async function chargeIdOf(stripe: Stripe, charge: Stripe.Charge): Promise<string | undefined> {
  if (charge.metadata?.charge_id) return charge.metadata.charge_id;
  const intent = charge.payment_intent;
  if (!intent) return undefined;
  return typeof intent === 'string' ? (await stripe.paymentIntents.retrieve(intent)).metadata?.charge_id : intent.metadata?.charge_id;
}

/** The merchant's own Stripe charge named by the event; another merchant's, or a sandbox's, is none. */
async function ourCharge(deps: AppDeps, merchant: MerchantRow, chargeId: string | undefined): Promise<ChargeRow | undefined> {
  if (!chargeId) return undefined;
  const charge = await findCharge(deps.db, merchant.id, chargeId);
  return charge?.processor === 'stripe' ? charge : undefined;
}

async function move(deps: AppDeps, charge: ChargeRow, to: ChargeStatus, failure: { failure_code?: string; failure_message?: string } = {}): Promise<string> {
  if (charge.status === to) return `ignored: the charge is ${to} already`;
  if (!allowedMovesFor(charge.status, charge.transaction_type).includes(to)) return `ignored: no move from ${charge.status} to ${to}`;
  const result = await moveChargeAsProcessor(deps, charge, { to, ...failure });
  return result.moved ? `moved: ${to}` : `ignored: the charge moved meanwhile (${result.charge.status})`;
}
