import { createStripeProcessor } from '../../src/processors/stripe';
import { STRIPE_ERRORS, ScriptedStripe, approvedCharge, cardDeclined, requiresAction, requiresRedirect, succeededIntent } from '../support/stripe-scripted';

// What the Stripe connector sends and how it reads Stripe's Charge; the shared rules are in stripe.kit.test.ts.
const card = { number: '4000000000003220', exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: '123' };

function connector(stripe: ScriptedStripe) {
  return createStripeProcessor({ secretKey: 'sk_test_connector', api: stripe.address, httpClient: stripe.httpClient });
}

test('a charge is one PaymentIntent, created and confirmed with the charge id as idempotency key and in its metadata', async () => {
  const stripe = new ScriptedStripe();
  const processor = connector(stripe);
  const method = await processor.tokenize({ type: 'card', card }, 'key', 'sandbox');
  await processor.charge({ token: method.processor_token, payment_type: 'card', amount_cents: 4321, transaction_type: 'credit', idempotency_key: 'ch_one' });
  expect(stripe.rejected).toEqual([]);
  const create = stripe.sent.find((r) => r.path === '/v1/payment_intents')!;
  expect(create.idempotencyKey).toBe('ch_one');
  expect(Object.fromEntries(create.body)).toMatchObject({
    amount: '4321',
    currency: 'usd',
    payment_method: method.processor_token,
    confirm: 'true',
    'metadata[charge_id]': 'ch_one',
    'allowed_payment_method_types[0]': 'card',
  });
  // The card number goes to Stripe once, to make the PaymentMethod, and never again.
  expect(stripe.sent.filter((r) => r.body.toString().includes(card.number)).map((r) => r.path)).toEqual(['/v1/payment_methods']);
});

test("the card-network fields come from Stripe's Charge: checks, authorization code, 3D Secure", async () => {
  const stripe = new ScriptedStripe({
    'POST /v1/payment_intents': (intent) => ({
      status: 200,
      body: { ...intent, status: 'succeeded', latest_charge: approvedCharge(intent.latest_charge, { version: '2.2.0', result: 'authenticated', eci: '05' }) },
    }),
  });
  const outcome = await connector(stripe).charge({ token: 'pm_card', payment_type: 'card', amount_cents: 100, transaction_type: 'credit', idempotency_key: 'ch_two' });
  expect(outcome).toEqual({
    kind: 'succeeded',
    processor_charge_id: expect.stringMatching(/^ch_/),
    avs_result: 'Y',
    cvv_result: 'M',
    network_authorization_code: '123456',
    threeds: { version: '2.2.0', authenticated: true, eci: '05' },
  });
});

test("3D Secure with the customer present: confirmed with the return_url, Stripe's redirect_to_url is the outcome's next_action", async () => {
  const stripe = new ScriptedStripe({ 'POST /v1/payment_intents': requiresRedirect });
  const returnUrl = 'https://pay.example.com/checkout/chk_threeds';
  const outcome = await connector(stripe).charge({ token: 'pm_card', payment_type: 'card', amount_cents: 100, transaction_type: 'credit', idempotency_key: 'ch_3ds', return_url: returnUrl });
  expect(stripe.rejected).toEqual([]);
  expect(stripe.sent.find((r) => r.path === '/v1/payment_intents')!.body.get('return_url')).toBe(returnUrl);
  expect(outcome).toMatchObject({ kind: 'pending', processor_charge_id: expect.stringMatching(/^pi_/), next_action: { type: 'redirect_to_url', url: expect.stringMatching(/^https:\/\/hooks\.stripe\.com\//) } });
});

test('a renewal is charged off-session, without a return_url; requires_action with no redirect carries no next_action', async () => {
  const stripe = new ScriptedStripe({ 'POST /v1/payment_intents': requiresAction });
  const outcome = await connector(stripe).charge({ token: 'pm_card', payment_type: 'card', amount_cents: 100, transaction_type: 'credit', idempotency_key: 'ch_renewal', merchant_initiated: true, return_url: 'https://pay.example.com/checkout/chk_renewal' });
  const create = stripe.sent.find((r) => r.path === '/v1/payment_intents')!;
  expect(create.body.get('off_session')).toBe('true');
  expect(create.body.has('return_url')).toBe(false);
  expect(outcome.kind).toBe('pending');
  expect(outcome).not.toHaveProperty('next_action');
});

test("an unknown decline code fails as card_declined; Stripe's charge id is kept", async () => {
  const stripe = new ScriptedStripe({ 'POST /v1/payment_intents': (intent) => cardDeclined(intent, 'try_again_later', 'Your card was declined.') });
  const outcome = await connector(stripe).charge({ token: 'pm_card', payment_type: 'card', amount_cents: 100, transaction_type: 'credit', idempotency_key: 'ch_three' });
  expect(outcome).toMatchObject({ kind: 'failed', failure_code: 'card_declined', failure_message: 'The card was declined.', processor_charge_id: 'ch_3ScriptedDecline' });
});

test('a refund is keyed by the charge id and refunds the full amount of the charge at Stripe', async () => {
  const stripe = new ScriptedStripe({ 'POST /v1/refunds': (refund) => ({ status: 200, body: { ...refund, status: 'succeeded' } }) });
  const refund = await connector(stripe).refund({ processor_charge_id: 'ch_3Abc', amount_cents: 500, token: 'pm_card', idempotency_key: 'ch_four' });
  expect(refund).toEqual({ ok: true, processor_refund_id: expect.stringMatching(/^re_/) });
  expect(stripe.rejected).toEqual([]);
  const sent = stripe.sent.find((r) => r.path === '/v1/refunds')!;
  expect(sent.idempotencyKey).toBe('ch_four:refund');
  expect(Object.fromEntries(sent.body)).toMatchObject({ charge: 'ch_3Abc', amount: '500' });
});

test('cards only: other payment types are refused at tokenize time', async () => {
  const processor = connector(new ScriptedStripe());
  await expect(processor.tokenize({ type: 'bank_account', bank_account: { routing_number: '110000000', account_number: '000123456789', account_type: 'checking' } }, 'key', 'sandbox')).rejects.toMatchObject({
    code: 'unsupported_payment_type',
  });
});

test('a refund refused for good (a revoked key) fails with Stripe\'s reason; a rate limit is left to the retry preset', async () => {
  const revoked = connector(new ScriptedStripe({ 'POST /v1/refunds': () => STRIPE_ERRORS.badKey }));
  expect(await revoked.refund({ processor_charge_id: 'ch_3Abc', amount_cents: 500, token: 'pm_card', idempotency_key: 'ch_five' })).toEqual({ ok: false, responsetext: expect.stringContaining('Invalid API Key') });
  const limited = connector(new ScriptedStripe({ 'POST /v1/refunds': () => STRIPE_ERRORS.rateLimited }));
  await expect(limited.refund({ processor_charge_id: 'ch_3Abc', amount_cents: 500, token: 'pm_card', idempotency_key: 'ch_five' })).rejects.toMatchObject({ name: 'ProcessorUnavailable', retryable: true });
});

test('lookupCharge finds the PaymentIntent made with the charge id, without making one', async () => {
  const found = new ScriptedStripe({
    'GET /v1/payment_intents/search': (list) => {
      const [intent] = list.data as Record<string, unknown>[];
      return { status: 200, body: { ...list, data: [{ ...succeededIntent(intent!).body, metadata: { charge_id: 'ch_six' } }] } };
    },
  });
  expect(await connector(found).lookupCharge('ch_six')).toEqual({ seen: true, outcome: expect.objectContaining({ kind: 'succeeded' }) });
  expect(found.rejected).toEqual([]);
  expect(found.sent.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /v1/payment_intents/search']);
  // stripe-mock's fixture names no charge of ours: not seen.
  expect(await connector(new ScriptedStripe()).lookupCharge('ch_seven')).toEqual({ seen: false });
});
