import Stripe from 'stripe';
import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { attempt, CARD, createCheckout, getCharge, openShop, recordedEvents, waitFor, type Shop } from '../../support/fixtures';
import { StripeProxy, approvedCharge, requiresAction, requiresRedirect, succeededIntent } from '../../support/stripe-scripted';

// Stripe's events, signed with stripe-node's own test-header helper and delivered to the inbound
// route; the objects they name are read again from Stripe (stripe-mock, with the script's answers).
let service: Service;
const stripe = new StripeProxy();
const WEBHOOK_SECRET = 'whsec_webhooksTest0001';
const signer = new Stripe('sk_test_signer');
beforeAll(async () => {
  service = await startService({ env: { STRIPE_API_BASE_URL: await stripe.start() } });
});
afterAll(async () => {
  await service.stop();
  await stripe.stop();
});
afterEach(() => expect(stripe.rejected).toEqual([]));

let sequence = 0;
function stripeShop(settings: Record<string, unknown> = {}): Promise<Shop> {
  return openShop(service, {
    card_processor: 'stripe',
    payment_methods: { deposit: ['credit_card'], withdrawal: [] },
    stripe: { secret_key: 'sk_test_51WebhooksTestKey01', webhook_secret: WEBHOOK_SECRET },
    enabled_events: ['checkout.refunded', 'checkout.returned'],
    ...settings,
  });
}

/** Stripe's Event envelope for `object`, signed as Stripe signs it. */
function deliver(shop: Shop, type: string, object: Record<string, unknown>, options: { id?: string; secret?: string } = {}) {
  const payload = JSON.stringify({ id: options.id ?? `evt_test_${process.pid}_${++sequence}`, object: 'event', api_version: '2026-10-28.endive', created: Math.floor(Date.now() / 1000), livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object } });
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET });
  return request(service.baseUrl, 'POST', `/processors/stripe/webhooks/${shop.merchant.id}`, { rawBody: payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
}

async function paidCharge(shop: Shop) {
  stripe.script = { 'POST /v1/payment_intents': succeededIntent };
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 3100 });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  expect(res.body.charge.status).toBe('succeeded');
  return res.body.charge as { id: string; checkout_id: string; processor_charge_id: string };
}

/** Stripe's Charge for our charge, as GET /v1/charges/{id} answers it now. */
const stripeChargeOf = (chargeId: string, changes: Record<string, unknown>) => (fixture: Record<string, unknown>) => ({
  status: 200,
  body: { ...approvedCharge(fixture), metadata: { charge_id: chargeId }, ...changes },
});

describe('POST /processors/stripe/webhooks/{merchant_id}', () => {
  it('charge.refunded for a refund made in Stripe\'s dashboard records the refund, once, with checkout.refunded', async () => {
    const shop = await stripeShop();
    const charge = await paidCharge(shop);
    stripe.script = { 'GET /v1/charges/': stripeChargeOf(charge.id, { refunded: true, amount_refunded: 3100 }) };
    const id = `evt_refunded_${charge.id}`;
    const res = await deliver(shop, 'charge.refunded', { id: charge.processor_charge_id, object: 'charge' }, { id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'moved: refunded' });
    expect((await getCharge(service, shop, charge.id)).body.status).toBe('refunded');
    expect(await service.deps.db('refunds').where({ charge_id: charge.id })).toEqual([expect.objectContaining({ source: 'processor', status: 'succeeded' })]);
    // No refund was asked of Stripe: it made it.
    expect(stripe.sent.filter((r) => r.path === '/v1/refunds')).toEqual([]);
    expect((await recordedEvents(service, charge.checkout_id)).map((e) => e.type)).toEqual(['checkout.succeeded', 'checkout.refunded']);

    const again = await deliver(shop, 'charge.refunded', { id: charge.processor_charge_id, object: 'charge' }, { id });
    expect(again.body).toEqual({ received: true, outcome: 'duplicate' });
    expect(await service.deps.db('refunds').where({ charge_id: charge.id })).toHaveLength(1);
  });

  it('charge.dispute.created moves the charge to returned with checkout.returned', async () => {
    const shop = await stripeShop();
    const charge = await paidCharge(shop);
    stripe.script = {
      'GET /v1/disputes/': (dispute) => ({ status: 200, body: { ...dispute, charge: charge.processor_charge_id } }),
      'GET /v1/charges/': stripeChargeOf(charge.id, { disputed: true }),
    };
    const res = await deliver(shop, 'charge.dispute.created', { id: 'dp_1Scripted', object: 'dispute' });
    expect(res.body).toEqual({ received: true, outcome: 'moved: returned' });
    expect((await getCharge(service, shop, charge.id)).body.status).toBe('returned');
    expect((await recordedEvents(service, charge.checkout_id)).map((e) => e.type)).toContain('checkout.returned');
  });

  it('payment_intent.succeeded settles a charge pending 3D Secure, as Stripe reads now', async () => {
    const shop = await stripeShop({ sandbox_settlement_seconds: 3600 });
    stripe.script = { 'POST /v1/payment_intents': requiresAction };
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1800 });
    const charge = (await attempt(service, checkout, { payment_method: CARD() })).body.charge;
    expect(charge.status).toBe('pending');
    stripe.script = { 'GET /v1/payment_intents/': (intent) => ({ ...succeededIntent(intent), body: { ...succeededIntent(intent).body, metadata: { charge_id: charge.id } } }) };
    const res = await deliver(shop, 'payment_intent.succeeded', { id: 'pi_3Scripted', object: 'payment_intent' });
    expect(res.body).toEqual({ received: true, outcome: 'moved: succeeded' });
    await waitFor(async () => (await getCharge(service, shop, charge.id)).body.status === 'succeeded');
  });

  it('a PaymentIntent needing 3D Secure answers the wallet with the redirect, confirmed with the checkout page as return_url; the merchant API shows no next_action', async () => {
    const shop = await stripeShop({ sandbox_settlement_seconds: 3600 });
    stripe.script = { 'POST /v1/payment_intents': requiresRedirect };
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1700 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    const charge = res.body.charge;
    expect(charge.status).toBe('pending');
    const created = stripe.sent.filter((r) => r.path === '/v1/payment_intents' && r.body.get('metadata[charge_id]') === charge.id);
    expect(created).toHaveLength(1);
    expect(created[0].body.get('return_url')).toBe(`${service.deps.config.walletBaseUrl}/checkout/${checkout.id}`);
    expect(created[0].body.get('confirm')).toBe('true');
    expect(charge.next_action).toEqual({ type: 'redirect_to_url', url: expect.stringMatching(/^https:\/\/hooks\.stripe\.com\/3d_secure_2\/hosted\?/) });
    const merchantView = (await getCharge(service, shop, charge.id)).body;
    expect(merchantView.status).toBe('pending');
    expect(merchantView).not.toHaveProperty('next_action');
  });

  it('payment_intent.payment_failed fails a pending charge with Stripe\'s decline code', async () => {
    const shop = await stripeShop({ sandbox_settlement_seconds: 3600 });
    stripe.script = { 'POST /v1/payment_intents': requiresAction };
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1900 });
    const charge = (await attempt(service, checkout, { payment_method: CARD() })).body.charge;
    const error = { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' };
    stripe.script = { 'GET /v1/payment_intents/': (intent) => ({ status: 200, body: { ...intent, status: 'requires_payment_method', last_payment_error: error, metadata: { charge_id: charge.id } } }) };
    const res = await deliver(shop, 'payment_intent.payment_failed', { id: 'pi_3Scripted', object: 'payment_intent' });
    expect(res.body).toEqual({ received: true, outcome: 'moved: failed' });
    expect((await getCharge(service, shop, charge.id)).body).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
  });

  it("acknowledges an event for another merchant's charge or an unknown one, and moves nothing", async () => {
    const shop = await stripeShop();
    const other = await stripeShop();
    const charge = await paidCharge(other);
    for (const chargeId of [charge.id, 'ch_unknown']) {
      stripe.script = { 'GET /v1/charges/': stripeChargeOf(chargeId, { refunded: true }) };
      const res = await deliver(shop, 'charge.refunded', { id: 'ch_3Other', object: 'charge' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, outcome: 'ignored: not a charge of this merchant' });
    }
    expect((await getCharge(service, other, charge.id)).body.status).toBe('succeeded');
    const unhandled = await deliver(shop, 'customer.created', { id: 'cus_1', object: 'customer' });
    expect(unhandled.body).toEqual({ received: true, outcome: 'ignored: customer.created is not handled' });
  });

  it('refuses an event whose signature does not verify with the merchant\'s endpoint secret', async () => {
    const shop = await stripeShop();
    const res = await deliver(shop, 'charge.refunded', { id: 'ch_1', object: 'charge' }, { secret: 'whsec_someoneElse0001' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'The Stripe-Signature does not verify.', hint: expect.any(String) });
    const unsigned = await request(service.baseUrl, 'POST', `/processors/stripe/webhooks/${shop.merchant.id}`, { body: { id: 'evt_1' } });
    expect(unsigned.status).toBe(422);
  });

  it('answers 503 while Stripe cannot be read again, and handles the same event when Stripe delivers it again', async () => {
    const shop = await stripeShop();
    const charge = await paidCharge(shop);
    const id = `evt_retry_${charge.id}`;
    stripe.script = { 'GET /v1/charges/': () => 'connection_lost' };
    const lost = await deliver(shop, 'charge.dispute.created', { id: 'dp_1Retry', object: 'dispute' }, { id });
    expect(lost.status).toBe(503);
    stripe.script = {
      'GET /v1/disputes/': (dispute) => ({ status: 200, body: { ...dispute, charge: charge.processor_charge_id } }),
      'GET /v1/charges/': stripeChargeOf(charge.id, { disputed: true }),
    };
    const again = await deliver(shop, 'charge.dispute.created', { id: 'dp_1Retry', object: 'dispute' }, { id });
    expect(again.body).toEqual({ received: true, outcome: 'moved: returned' });
  });
});
