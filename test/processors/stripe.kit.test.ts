import { createStripeProcessor } from '../../src/processors/stripe';
import { runConnectorKit, type KitScenario } from './kit/connector-kit';
import { STRIPE_ERRORS, ScriptedStripe, cardDeclined, requiresAction, succeededIntent, type StripeScript } from '../support/stripe-scripted';

// Stripe on stripe-mock: every request is checked by stripe-mock against Stripe's API description;
// each scenario's outcome is Stripe's documented answer laid over stripe-mock's fixture.
const SCRIPTS: Record<KitScenario, StripeScript> = {
  approve: { 'POST /v1/payment_intents': succeededIntent, 'POST /v1/refunds': (refund) => ({ status: 200, body: { ...refund, status: 'succeeded' } }) },
  decline: { 'POST /v1/payment_intents': (intent) => cardDeclined(intent, 'generic_decline', 'Your card was declined.') },
  insufficient_funds: { 'POST /v1/payment_intents': (intent) => cardDeclined(intent, 'insufficient_funds', 'Your card has insufficient funds.') },
  threeds: { 'POST /v1/payment_intents': requiresAction },
  refund_declined: { 'POST /v1/payment_intents': succeededIntent, 'POST /v1/refunds': () => STRIPE_ERRORS.chargeAlreadyRefunded },
  rate_limited: { 'POST /v1/payment_intents': () => STRIPE_ERRORS.rateLimited },
  connection_lost: { 'POST /v1/payment_intents': () => 'connection_lost' },
  bad_key: { 'POST /v1/payment_intents': () => STRIPE_ERRORS.badKey },
  idempotency_conflict: { 'POST /v1/payment_intents': () => STRIPE_ERRORS.idempotencyConflict },
};

const expYear = new Date().getUTCFullYear() + 2;
let current: ScriptedStripe | undefined;

afterEach(() => {
  // Every request the connector made is valid by Stripe's API description (stripe-mock accepted it).
  expect(current?.rejected ?? []).toEqual([]);
});

runConnectorKit({
  name: 'stripe (stripe-mock)',
  environment: 'sandbox',
  scenario(scenario) {
    current = new ScriptedStripe(SCRIPTS[scenario]);
    const processor = createStripeProcessor({ secretKey: 'sk_test_connectorkit', api: current.address, httpClient: current.httpClient });
    return { processor, card: { number: '4242424242424242', exp_month: 12, exp_year: expYear, cvc: '123' } };
  },
  sentIdempotencyKeys: (path) => current?.idempotencyKeys(path) ?? [],
});
