import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import Stripe from 'stripe';
import { startService, type Service } from '../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../support/http';
import { collectErrors, launchChromium } from '../support/browser';
import { StripeProxy, requiresRedirect, succeededIntent, type SentRequest } from '../support/stripe-scripted';

/**
 * A sandbox merchant with a Stripe test key: the customer pays on the hosted page in a real
 * browser, the merchant refunds through the API, and both go to Stripe (stripe-mock, through the
 * recording proxy that gives Stripe's documented answers).
 */
let service: Service;
let browser: Browser;
let merchant: MerchantCredentials;
const stripe = new StripeProxy({
  'POST /v1/payment_intents': succeededIntent,
  'POST /v1/refunds': (refund) => ({ status: 200, body: { ...refund, status: 'succeeded' } }),
});

beforeAll(async () => {
  service = await startService({ env: { STRIPE_API_BASE_URL: await stripe.start() } });
  merchant = await onboard(service, {
    name: 'Acme on Stripe',
    settings: { card_processor: 'stripe', payment_methods: { deposit: ['credit_card'], withdrawal: [] }, stripe: { secret_key: 'sk_test_51BrowserTestKey001' } },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stripe.stop();
});

/** A new deposit checkout of `shop`'s, paid on the hosted page with the card `number`: the page after the click on Pay. */
async function payByCard(shop: MerchantCredentials, amountCents: number, number: string) {
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.api_key, body: uniqueCustomer() });
  const checkout = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.api_key, body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: amountCents } });
  expect(checkout.status).toBe(201);
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  const page = await context.newPage();
  const pageErrors = collectErrors(page);
  await page.goto(checkout.body.url);
  await page.getByTestId('method-credit_card').check();
  await page.getByTestId('card-number').fill(number);
  await page.getByTestId('card-exp').fill(`12/${String(new Date().getUTCFullYear() + 3).slice(-2)}`);
  await page.getByTestId('card-cvc').fill('123');
  await page.getByTestId('pay-button').click();
  return { checkout, context, page, pageErrors };
}

it('pays a checkout by card through Stripe in the browser, then refunds it through Stripe', async () => {
  const { checkout, context, page, pageErrors } = await payByCard(merchant, 4200, '4242424242424242');
  await page.getByTestId('result').filter({ hasText: 'Payment complete' }).waitFor({ state: 'visible', timeout: 30_000 });
  expect(pageErrors).toEqual([]);
  await context.close();

  const charge = await service.deps.db('charges').where({ checkout_id: checkout.body.id }).first();
  expect(charge).toMatchObject({ status: 'succeeded', processor: 'stripe' });
  expect(stripe.idempotencyKeys('/v1/payment_intents')).toEqual([charge.id]);
  const refund = await request(service.baseUrl, 'POST', `/api/v1/charges/${charge.id}/refund`, { token: merchant.api_key });
  expect(refund.status).toBe(200);
  expect(refund.body.status).toBe('refunded');
  expect(stripe.idempotencyKeys('/v1/refunds')).toEqual([`${charge.id}:refund`]);
  expect(stripe.rejected).toEqual([]);
});

/** The card issuer's 3D Secure page, standing in for Stripe's: it authenticates at once and sends the customer back to the return_url. */
function startIssuer(): Promise<{ server: Server; url: string; visits: string[] }> {
  const visits: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://issuer');
    visits.push(url.pathname);
    const back = new URL(url.searchParams.get('return_url') ?? '');
    for (const [name, value] of Object.entries({ payment_intent: url.searchParams.get('payment_intent') ?? '', payment_intent_client_secret: 'pi_secret_scripted', redirect_status: 'succeeded' })) back.searchParams.set(name, value);
    res.writeHead(302, { location: back.href }).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/3d_secure`, visits })));
}

it('completes 3D Secure: the page sends the customer to the issuer, follows the charge on return, and shows it paid once Stripe\'s event settles it', async () => {
  const webhookSecret = 'whsec_browserThreeDS01';
  const shop = await onboard(service, {
    name: 'Acme on Stripe with 3D Secure',
    settings: { card_processor: 'stripe', sandbox_settlement_seconds: 3600, payment_methods: { deposit: ['credit_card'], withdrawal: [] }, stripe: { secret_key: 'sk_test_51BrowserThreeDS01', webhook_secret: webhookSecret } },
  });
  const issuer = await startIssuer();
  const script = stripe.script;
  stripe.script = {
    'POST /v1/payment_intents': (intent: Record<string, unknown>, sent: SentRequest) => {
      const answer = requiresRedirect(intent, sent);
      const challenge = `${issuer.url}?payment_intent=${String(intent.id)}&return_url=${encodeURIComponent(sent.body.get('return_url') ?? '')}`;
      return { status: 200, body: { ...answer.body, next_action: { ...answer.body.next_action, redirect_to_url: { ...answer.body.next_action.redirect_to_url, url: challenge } } } };
    },
  };
  try {
    const { checkout, context, page, pageErrors } = await payByCard(shop, 2600, '4000000000003220');

    // Back from the issuer: the page follows the pending charge, with Stripe's parameters gone from the address.
    await page.getByTestId('result').filter({ hasText: 'Processing' }).waitFor({ state: 'visible', timeout: 30_000 });
    expect(issuer.visits).toEqual(['/3d_secure']);
    expect(page.url()).toBe(`${service.deps.config.walletBaseUrl}/checkout/${checkout.body.id}`);
    const charge = await service.deps.db('charges').where({ checkout_id: checkout.body.id }).first();
    expect(charge).toMatchObject({ status: 'pending', processor: 'stripe' });

    stripe.script = { 'GET /v1/payment_intents/': (intent) => ({ ...succeededIntent(intent), body: { ...succeededIntent(intent).body, metadata: { charge_id: charge.id } } }) };
    const payload = JSON.stringify({ id: `evt_browser_${charge.id}`, object: 'event', api_version: '2026-10-28.endive', created: Math.floor(Date.now() / 1000), livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type: 'payment_intent.succeeded', data: { object: { id: charge.processor_charge_id, object: 'payment_intent' } } });
    const signature = new Stripe('sk_test_signer').webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const delivered = await request(service.baseUrl, 'POST', `/processors/stripe/webhooks/${shop.id}`, { rawBody: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
    expect(delivered.body).toEqual({ received: true, outcome: 'moved: succeeded' });

    await page.getByTestId('result').filter({ hasText: 'Payment complete' }).waitFor({ state: 'visible', timeout: 30_000 });
    expect(pageErrors).toEqual([]);
    await context.close();
    expect(stripe.rejected).toEqual([]);
  } finally {
    stripe.script = script;
    await new Promise((resolve) => issuer.server.close(resolve));
  }
});
