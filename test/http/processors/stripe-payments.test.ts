import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { attempt, CARD, createCheckout, getCharge, openShop, recordedEvents, waitFor, type Shop } from '../../support/fixtures';
import { STRIPE_ERRORS, StripeProxy, cardDeclined, succeededIntent, type StripeScript } from '../../support/stripe-scripted';

// The service with a Stripe merchant, its API requests going to stripe-mock through a proxy that
// records them and lays Stripe's documented answers over stripe-mock's fixtures.
let service: Service;
const stripe = new StripeProxy();
beforeAll(async () => {
  const url = await stripe.start();
  service = await startService({ env: { STRIPE_API_BASE_URL: url } });
});
afterAll(async () => {
  await service.stop();
  await stripe.stop();
});
afterEach(() => {
  // Every request the service made to Stripe is valid by Stripe's API description.
  expect(stripe.rejected).toEqual([]);
});

const APPROVE: StripeScript = { 'POST /v1/payment_intents': succeededIntent, 'POST /v1/refunds': (refund) => ({ status: 200, body: { ...refund, status: 'succeeded' } }) };

function stripeShop(): Promise<Shop> {
  return openShop(service, {
    card_processor: 'stripe',
    payment_methods: { deposit: ['credit_card'], withdrawal: [] },
    stripe: { secret_key: 'sk_test_51PaymentsTestKey0001', webhook_secret: 'whsec_paymentsTest0001' },
    enabled_events: ['checkout.refunded'],
  });
}

async function pay(shop: Shop, amount = 2500) {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: amount });
  return attempt(service, checkout, { payment_method: CARD() });
}

const refund = (shop: Shop, chargeId: string) => request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key });

describe('A Stripe merchant on stripe-mock', () => {
  it('pays a card deposit as one PaymentIntent keyed by the charge id, then refunds it through Stripe once', async () => {
    stripe.script = APPROVE;
    const shop = await stripeShop();
    const res = await pay(shop);
    expect(res.status).toBe(201);
    const charge = res.body.charge;
    expect(charge).toMatchObject({ status: 'succeeded', avs_result: 'Y', cvv_result: 'M', network_authorization_code: '123456', processor_charge_id: expect.stringMatching(/^ch_/) });
    expect(stripe.idempotencyKeys('/v1/payment_intents')).toContain(charge.id);

    const refunded = await refund(shop, charge.id);
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ id: charge.id, status: 'refunded' });
    expect(stripe.idempotencyKeys('/v1/refunds')).toEqual(expect.arrayContaining([`${charge.id}:refund`]));
    const again = await refund(shop, charge.id);
    expect(again.status).toBe(422);
    const checkoutId = (await service.deps.db('charges').where({ id: charge.id }).first()).checkout_id;
    const types = (await recordedEvents(service, checkoutId)).map((e) => e.type);
    expect(types).toEqual(['checkout.succeeded', 'checkout.refunded']);
  });

  it("a Stripe decline fails the charge with Stripe's decline code and a readable message", async () => {
    stripe.script = { 'POST /v1/payment_intents': (intent) => cardDeclined(intent, 'insufficient_funds', 'Your card has insufficient funds.') };
    const res = await pay(await stripeShop());
    expect(res.status).toBe(201);
    expect(res.body.charge).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds', failure_message: 'The payment method has insufficient funds.' });
  });

  it('a refund Stripe declines answers {error: "Refund failed", responsetext} with its reason, and the charge stays succeeded', async () => {
    stripe.script = APPROVE;
    const shop = await stripeShop();
    const charge = (await pay(shop)).body.charge;
    stripe.script = { 'POST /v1/refunds': () => STRIPE_ERRORS.chargeAlreadyRefunded };
    const res = await refund(shop, charge.id);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'Refund failed', responsetext: 'Charge ch_3ScriptedRefund has already been refunded.' });
    expect((await getCharge(service, shop, charge.id)).body.status).toBe('succeeded');
  });

  it('a rate-limited PaymentIntent is retried by the activity with the same idempotency key: one charge, no second PaymentIntent key', async () => {
    let calls = 0;
    stripe.script = { ...APPROVE, 'POST /v1/payment_intents': (intent, sent) => (++calls === 1 ? STRIPE_ERRORS.rateLimited : APPROVE['POST /v1/payment_intents']!(intent, sent)) };
    const res = await pay(await stripeShop());
    expect(res.status).toBe(201);
    const charge = res.body.charge;
    expect(charge.status).toBe('succeeded');
    expect(stripe.idempotencyKeys('/v1/payment_intents').filter((key) => key === charge.id)).toEqual([charge.id, charge.id]);
    expect(calls).toBe(2);
    await waitFor(async () => (await service.deps.db('charges').where({ checkout_id: charge.checkout_id })).length === 1);
  });

  it('Stripe unreachable or refusing the key while the card is tokenized: 503 or 422 with a hint, never a 500, and the checkout can be paid after', async () => {
    const shop = await stripeShop();
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 700 });
    stripe.script = { ...APPROVE, 'POST /v1/payment_methods': () => STRIPE_ERRORS.rateLimited };
    const limited = await attempt(service, checkout, { payment_method: CARD() });
    expect(limited.status).toBe(503);
    expect(limited.body.hint).toEqual(expect.any(String));
    stripe.script = { ...APPROVE, 'POST /v1/payment_methods': () => STRIPE_ERRORS.badKey };
    const refused = await attempt(service, checkout, { payment_method: CARD() });
    expect(refused.status).toBe(422);
    expect(refused.body.hint).toMatch(/credentials/);
    stripe.script = APPROVE;
    const paid = await attempt(service, checkout, { payment_method: CARD() });
    expect(paid.status).toBe(201);
    expect(paid.body.charge.status).toBe('succeeded');
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(1);
  });
});
