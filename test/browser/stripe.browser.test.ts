import type { Browser } from 'playwright-core';
import { startService, type Service } from '../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../support/http';
import { collectErrors, launchChromium } from '../support/browser';
import { StripeProxy, succeededIntent } from '../support/stripe-scripted';

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

it('pays a checkout by card through Stripe in the browser, then refunds it through Stripe', async () => {
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer() });
  const checkout = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: merchant.api_key, body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: 4200 } });
  expect(checkout.status).toBe(201);
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  const page = await context.newPage();
  const pageErrors = collectErrors(page);
  await page.goto(checkout.body.url);
  await page.getByTestId('method-credit_card').check();
  await page.getByTestId('card-number').fill('4242424242424242');
  await page.getByTestId('card-exp').fill(`12/${String(new Date().getUTCFullYear() + 3).slice(-2)}`);
  await page.getByTestId('card-cvc').fill('123');
  await page.getByTestId('pay-button').click();
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
