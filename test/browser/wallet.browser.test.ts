import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type Service } from '../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../support/http';
import { waitFor as pollFor } from '../support/fixtures';
import { collectErrors, HTML_FROM_STRING_PROBE, launchChromium } from '../support/browser';
import { loadGeoData } from '../../src/geo';

/**
 * The hosted checkout page driven by a real browser (Debian's chromium through playwright-core)
 * against the real service and workflows: pay, be declined and retry, and the same inside a
 * merchant's iframe served from another origin. Screenshots go to /tmp/wallet-*.png.
 */
let service: Service;
let merchant: MerchantCredentials;
let browser: Browser;
let context: BrowserContext;
let host: Server;
let hostOrigin: string;

const EXPIRY = `12/${String(new Date().getUTCFullYear() + 3).slice(-2)}`;
const FINAL_TIMEOUT = 30_000;

type Scope = Pick<Page, 'getByTestId'> | FrameLocator;

async function newCustomer(m: MerchantCredentials = merchant): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() });
  if (res.status !== 201) throw new Error(`customer create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function newCheckout(body: Record<string, unknown>, m: MerchantCredentials = merchant): Promise<{ id: string; url: string }> {
  const customer_id = (body.customer_id as string | undefined) ?? (await newCustomer(m));
  const res = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: m.api_key, body: { customer_id, ...body } });
  if (res.status !== 201) throw new Error(`checkout create failed: ${res.status} ${res.text}`);
  return res.body;
}

async function payByCard(scope: Scope, number: string): Promise<void> {
  await scope.getByTestId('method-credit_card').check();
  await scope.getByTestId('card-number').fill(number);
  await scope.getByTestId('card-exp').fill(EXPIRY);
  await scope.getByTestId('card-cvc').fill('123');
  await scope.getByTestId('pay-button').click();
}

async function payByBank(scope: Scope): Promise<void> {
  await scope.getByTestId('method-bank_account').check();
  await scope.getByTestId('bank-routing').fill('110000000');
  await scope.getByTestId('bank-account').fill('000123456789');
  await scope.getByTestId('pay-button').click();
}

async function expectText(scope: Scope, testId: string, text: string | RegExp): Promise<string> {
  const locator = scope.getByTestId(testId).filter({ hasText: text });
  await locator.waitFor({ state: 'visible', timeout: FINAL_TIMEOUT });
  return (await locator.textContent()) ?? '';
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A merchant's page on another origin that embeds the wallet as the contract says: allow="payment". */
function hostPage(src: string): string {
  const escaped = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Merchant shop</title>
<style>body{font-family:sans-serif;background:#e9ecf2;margin:0;padding:24px}h1{font-size:20px}
iframe{width:100%;max-width:520px;height:760px;border:1px solid #ccd;border-radius:12px;background:#fff;display:block}</style>
</head><body><h1>Merchant shop: checkout</h1><iframe src="${escaped}" allow="payment" title="Checkout"></iframe></body></html>`;
}

beforeAll(async () => {
  service = await startService();
  // As the API's entry point does before it takes traffic, so no device ping waits for the dataset.
  loadGeoData();
  merchant = await onboard(service, { name: 'Acme Games' });
  browser = await launchChromium();
  host = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://host').searchParams.get('src') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage(src));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (host ? host.close(() => resolve()) : resolve()));
  await service?.stop();
});

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
});
afterEach(async () => context.close());

describe('hosted checkout page', () => {
  it('removes the checkout secret from the address bar once loaded, still works after a reload, and shows the sandbox notice', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 1234 });
    const secret = new URL(checkout.url).searchParams.get('client_secret')!;
    const page = await context.newPage();
    const pageErrors = collectErrors(page);
    await page.goto(checkout.url);
    await expectText(page, 'merchant-name', 'Acme Games');
    expect(page.url()).not.toContain(secret);
    expect(new URL(page.url()).pathname).toBe(`/checkout/${checkout.id}`);
    await expectText(page, 'sandbox-notice', '4242 4242 4242 4242');

    await page.reload();
    await expectText(page, 'pay-button', 'Pay $12.34');
    expect(page.url()).not.toContain(secret);
    expect(pageErrors).toEqual([]);
    // Audit: Trusted Types with no policy, so no string (a merchant's name, an error) can become HTML on the page.
    expect(await page.evaluate(HTML_FROM_STRING_PROBE)).toBe('refused');
  });

  it('shows no sandbox notice for a production merchant', async () => {
    const production = await onboard(service, { name: 'Acme Live', environment: 'production' });
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 500 }, production);
    const page = await context.newPage();
    await page.goto(checkout.url);
    await expectText(page, 'merchant-name', 'Acme Live');
    expect(await page.getByTestId('sandbox-notice').isVisible()).toBe(false);
  });

  it('takes a card deposit of an amount the customer picks', async () => {
    const checkout = await newCheckout({ type: 'deposit' });
    const page = await context.newPage();
    const pageErrors = collectErrors(page);
    await page.goto(checkout.url);

    await expectText(page, 'merchant-name', 'Acme Games');
    await page.getByTestId('amount-input').fill('25.50');
    await expectText(page, 'pay-button', 'Pay $25.50');
    await page.getByTestId('method-credit_card').check();
    await page.getByTestId('card-number').fill('4242424242424242');
    await page.getByTestId('card-exp').fill(EXPIRY);
    await page.getByTestId('card-cvc').fill('123');
    await page.screenshot({ path: '/tmp/wallet-deposit-form.png', fullPage: true });
    await page.getByTestId('pay-button').click();

    const result = await expectText(page, 'result', 'Payment complete');
    expect(result).toContain('$25.50');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/wallet-deposit-success.png', fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('shows a decline and lets the customer retry with another card', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 1999 });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await expectText(page, 'pay-button', 'Pay $19.99');
    expect(await page.getByTestId('amount-input').isVisible()).toBe(false);

    await payByCard(page, '4000000000000002');
    await expectText(page, 'error', 'The card was declined.');
    expect(await page.getByTestId('pay-button').isEnabled()).toBe(true);
    await page.screenshot({ path: '/tmp/wallet-declined.png', fullPage: true });

    await payByCard(page, '4242424242424242');
    await expectText(page, 'result', 'Payment complete');
  });

  it('works inside a merchant iframe on another origin', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 4200, experience: 'iframe' });
    const page = await context.newPage();
    const pageErrors = collectErrors(page);
    await page.goto(`${hostOrigin}/?src=${encodeURIComponent(checkout.url)}`);
    const frame = page.frameLocator('iframe');

    await expectText(frame, 'merchant-name', 'Acme Games');
    await payByCard(frame, '4000000000000002');
    await expectText(frame, 'error', 'The card was declined.');
    await page.screenshot({ path: '/tmp/wallet-iframe-declined.png', fullPage: true });
    await payByCard(frame, '4242424242424242');
    await expectText(frame, 'result', 'Payment complete');
    await page.screenshot({ path: '/tmp/wallet-iframe-success.png', fullPage: true });
    // No script error and no CSP or framing refusal, in the frame or around it.
    expect(pageErrors).toEqual([]);
  });

  // Audit regression: any site could frame any checkout's page and lay its Pay button (a saved card
  // preselected) under its own; only a checkout made for an iframe may be framed now.
  it('is not shown inside another site\'s frame when the checkout was not made for an iframe', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 4200, experience: 'web' });
    const page = await context.newPage();
    const pageErrors = collectErrors(page);
    await page.goto(`${hostOrigin}/?src=${encodeURIComponent(checkout.url)}`);
    await waitFor(() => pageErrors.some((error) => error.includes("frame-ancestors 'none'")), 10_000);
    expect(await page.frameLocator('iframe').getByTestId('pay-button').count()).toBe(0);
  });

  it('redirects to the return_url inside the frame after completion', async () => {
    const returnUrl = `${hostOrigin}/returned`;
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 500, experience: 'iframe', return_url: returnUrl });
    const page = await context.newPage();
    await page.goto(`${hostOrigin}/?src=${encodeURIComponent(checkout.url)}`);
    const frame = page.frameLocator('iframe');
    await payByCard(frame, '4242424242424242');
    await expectText(frame, 'result', 'Payment complete');
    expect(await frame.getByTestId('return-link').getAttribute('href')).toBe(returnUrl);
    // The redirect happens in the frame; the merchant's top page stays where it was.
    await waitFor(() => page.frames().some((f) => f !== page.mainFrame() && f.url() === returnUrl), 10_000);
    expect(page.url()).toContain(`${hostOrigin}/?src=`);
  });

  it('shows a purchase with shipping and tax lines and a subscription interval', async () => {
    const checkout = await newCheckout({
      type: 'deposit',
      // Shipping sent first on purpose: the page still lists it below the products.
      line_items: [
        { name: 'Shipping', price_cents: 499, quantity: 1, sku: 'shipping' },
        { name: 'Gold membership', price_cents: 2500, quantity: 1 },
        { name: 'Sticker pack', price_cents: 150, quantity: 2, url: 'https://images.invalid/stickers.png' },
        { name: 'Tax', price_cents: 250, quantity: 1, sku: 'tax' },
      ],
      subscription_data: { interval: 'month', interval_count: 3 },
    });
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(checkout.url);
    await expectText(page, 'total', '$35.49');
    await expectText(page, 'subscription-interval', 'every 3 months');
    const kinds = await page.locator('[data-testid="line-items"] li').evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    expect(kinds).toEqual(['product', 'product', 'shipping', 'tax']);
    await page.screenshot({ path: '/tmp/wallet-subscription-mobile.png', fullPage: true });
  });

  it('says before paying that the card is saved for renewals, with amount and interval; paying creates the subscription', async () => {
    const checkout = await newCheckout({
      type: 'deposit',
      line_items: [{ name: 'Pro plan', price_cents: 1999, quantity: 1 }],
      subscription_data: { interval: 'month', interval_count: 1 },
    });
    const page = await context.newPage();
    await page.goto(checkout.url);
    const note = await expectText(page, 'subscription-renewal', 'saved for renewals');
    expect(note).toContain('$19.99 every month');
    await expectText(page, 'subscription-interval', 'Billed $19.99 every month');
    // The method is kept for renewals anyway, so the page offers no "save for next time" choice.
    await page.getByTestId('method-credit_card').check();
    expect(await page.getByTestId('save-method').isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/wallet-subscription-renewal.png', fullPage: true });
    await payByCard(page, '4242424242424242');
    await expectText(page, 'result', 'Payment complete');
    const sub = await pollFor(async () => service.deps.db('subscriptions').where({ checkout_id: checkout.id }).first(), 15_000);
    expect(sub).toMatchObject({ status: 'active', amount_cents: 1999, interval: 'month' });
    expect((await service.deps.db('payment_methods').where({ id: sub.payment_method_id }).first()).saved).toBe(true);
  });

  it('offers a balance withdrawal up to the balance and refuses more', async () => {
    const checkout = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await expectText(page, 'amount-help', 'up to $100.00');
    await page.getByTestId('amount-input').fill('150');
    await payByCard(page, '4242424242424242');
    await expectText(page, 'error', 'You can withdraw up to $100.00.');
    await page.screenshot({ path: '/tmp/wallet-withdrawal.png', fullPage: true });
  });

  it('shows Processing… for a pending bank deposit and follows it to success', async () => {
    const m = await onboard(service, { name: 'Slow Bank Shop', settings: { sandbox_settlement_seconds: 3 } });
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 1500 }, m);
    const page = await context.newPage();
    await page.goto(checkout.url);
    await payByBank(page);
    await expectText(page, 'result', 'Processing…');
    await page.screenshot({ path: '/tmp/wallet-processing.png', fullPage: true });
    await expectText(page, 'result', 'Payment complete');
  });

  it('opens with the only wallet method selected and pays with a sandbox token', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 700, payment_options: ['paypal'] });
    const page = await context.newPage();
    await page.goto(checkout.url);
    expect(await page.getByTestId('method-paypal').isChecked()).toBe(true);
    await expectText(page, 'pay-button', 'Pay $7.00 with PayPal');
    await page.screenshot({ path: '/tmp/wallet-paypal.png', fullPage: true });
    await page.getByTestId('pay-button').click();
    await expectText(page, 'result', 'Payment complete');
  });

  it('saves a card and offers it as "Visa •••• 4242" on the next checkout', async () => {
    const customerId = await newCustomer();
    const first = await newCheckout({ type: 'deposit', fixed_amount_cents: 1000, customer_id: customerId });
    const page = await context.newPage();
    await page.goto(first.url);
    await page.getByTestId('method-credit_card').check();
    await page.getByTestId('card-number').fill('4242424242424242');
    await page.getByTestId('card-exp').fill(EXPIRY);
    await page.getByTestId('card-cvc').fill('123');
    await page.getByTestId('save-method').check();
    await page.getByTestId('pay-button').click();
    await expectText(page, 'result', 'Payment complete');

    const second = await newCheckout({ type: 'deposit', fixed_amount_cents: 1200, customer_id: customerId });
    await page.goto(second.url);
    const saved = page.locator('[data-testid^="saved-method-"]');
    await saved.first().waitFor({ timeout: FINAL_TIMEOUT });
    expect(await saved.count()).toBe(1);
    expect(await saved.isChecked()).toBe(true);
    expect(await page.locator('label.method-option.selected').textContent()).toContain('Visa •••• 4242');
    expect(await page.getByTestId('save-method').isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/wallet-saved-method.png', fullPage: true });
    await page.getByTestId('pay-button').click();
    await expectText(page, 'result', 'Payment complete');
  });

  it('tells the customer a withdrawal is being reviewed', async () => {
    const m = await onboard(service, { name: 'Careful Casino', settings: { review: { enabled: true, min_amount_cents: 1 } } });
    const checkout = await newCheckout({ type: 'withdrawal', fixed_amount_cents: 5000 }, m);
    const page = await context.newPage();
    await page.goto(checkout.url);
    await payByBank(page);
    await expectText(page, 'result', 'Your withdrawal is being reviewed');
    await page.reload();
    await expectText(page, 'result', 'Your withdrawal is being reviewed');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/wallet-review.png', fullPage: true });
  });

  // Audit regression: the page followed a review by polling for the checkout's latest charge, so
  // a charge that had failed before the review (a refused hold) was taken for the review's outcome
  // at the first poll: the page showed that old failure and the form again while still in review.
  it('keeps showing a review after an earlier failed attempt, until the review has its own charge', async () => {
    const m = await onboard(service, { name: 'Careful Casino', settings: { review: { enabled: true, min_amount_cents: 5000 } } });
    const checkout = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 }, m);
    const page = await context.newPage();
    await page.goto(checkout.url);
    // No webhook_url: the hold of this small withdrawal is refused, and the customer may retry.
    await page.getByTestId('amount-input').fill('10');
    await payByBank(page);
    await expectText(page, 'error', 'did not confirm');
    await page.getByTestId('amount-input').fill('60');
    await page.getByTestId('pay-button').click();
    await expectText(page, 'result', 'Your withdrawal is being reviewed');
    await page.waitForTimeout(6_500); // past the first poll of the review (every 5 s)
    expect(await page.getByTestId('result').isVisible()).toBe(true);
    expect(await page.getByTestId('result').textContent()).toContain('Your withdrawal is being reviewed');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
    // Approved, the review's own charge is followed: its hold is refused too, and the page says so.
    const review = await service.deps.db('reviews').where({ checkout_id: checkout.id }).first();
    const approved = await request(service.baseUrl, 'POST', `/admin/v1/reviews/${review.id}/approve`, { token: service.adminToken });
    expect(approved.status).toBe(200);
    await pollFor(async () => (await service.deps.db('charges').where({ checkout_id: checkout.id, status: 'failed' })).length === 2);
    await page.getByTestId('pay-button').waitFor({ state: 'visible', timeout: FINAL_TIMEOUT });
    await expectText(page, 'error', 'did not confirm');
  }, 60_000);

  it('sends the device location when the merchant requires a geo check', async () => {
    const m = await onboard(service, { name: 'Geo Shop', settings: { geo_required_for: ['deposit'] } });
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 800 }, m);
    await context.grantPermissions(['geolocation']);
    await context.setGeolocation({ latitude: 40.7128, longitude: -74.006 });
    const page = await context.newPage();
    // The device_pings route belongs to the identity work; here the browser's call is captured.
    const pings: { body: unknown; secret: string | undefined }[] = [];
    await page.route('**/wallet/v1/checkouts/*/device_pings', async (route) => {
      pings.push({ body: route.request().postDataJSON(), secret: route.request().headers()['x-client-secret'] });
      await route.fulfill({ status: 201, contentType: 'application/json', body: JSON.stringify({ id: 'dp_test', geo_check: null, ip_check: null }) });
    });
    await page.goto(checkout.url);
    await waitFor(() => pings.length > 0, 10_000);
    expect(pings[0]).toEqual({ body: { latitude: 40.7128, longitude: -74.006 }, secret: new URL(checkout.url).searchParams.get('client_secret') });
    expect(await page.getByText('This payment needs your location').isVisible()).toBe(true);
  });

  it('reports the location again before paying, so a check that aged past 30 minutes on the open page does not block the checkout (audit)', async () => {
    // Audit regression: the page pinged once, on load. A customer who paid more than 30 minutes
    // later (checkout_expiry_seconds allows up to a day) met a stale geo check, and the checkout
    // was blocked for good (checkout.terminally_failed) although the customer was in New York.
    const m = await onboard(service, { name: 'Slow Geo Shop', settings: { geo_required_for: ['deposit'], checkout_expiry_seconds: 7200 } });
    const customerId = await newCustomer(m);
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 900, customer_id: customerId }, m);
    await context.grantPermissions(['geolocation']);
    await context.setGeolocation({ latitude: 40.7128, longitude: -74.006 });
    const page = await context.newPage();
    await page.goto(checkout.url);
    const checks = () => service.deps.db('geo_checks').where({ customer_id: customerId });
    await pollFor(async () => (await checks()).length > 0, 10_000, 'the page load geo check');
    // The page stayed open for 31 minutes: its check is now outside the 30-minute window.
    await checks().update({ checked_at: service.deps.db.raw("now() - interval '31 minutes'") });
    await payByCard(page, '4242424242424242');
    await expectText(page, 'result', 'Payment complete');
    expect(await checks()).toHaveLength(2);
  });

  it('shows a clear message and no form for a completed checkout', async () => {
    const checkout = await newCheckout({ type: 'deposit', fixed_amount_cents: 300 });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await payByCard(page, '4242424242424242');
    await expectText(page, 'result', 'Payment complete');
    await page.reload();
    await expectText(page, 'result', 'Payment complete');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
  });

  it('shows an expired checkout as such, without the form', async () => {
    const m = await onboard(service, { name: 'Quick Shop', settings: { checkout_expiry_seconds: 1 } });
    const checkout = await newCheckout({ type: 'deposit' }, m);
    const secret = new URL(checkout.url).searchParams.get('client_secret')!;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await request(service.baseUrl, 'GET', `/wallet/v1/checkouts/${checkout.id}`, { headers: { 'x-client-secret': secret } });
      if (res.body.state === 'expired') break;
      if (Date.now() > deadline) throw new Error(`checkout did not expire: ${res.text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const page = await context.newPage();
    await page.goto(checkout.url);
    await expectText(page, 'state-message', 'This checkout has expired.');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/wallet-expired.png', fullPage: true });
  });

  it('refuses a link with a wrong client secret', async () => {
    const checkout = await newCheckout({ type: 'deposit' });
    const page = await context.newPage();
    await page.goto(checkout.url.replace(/client_secret=[^&]+/, 'client_secret=secret_wrong'));
    await expectText(page, 'state-message', 'This payment link is not valid.');
    expect(await page.getByTestId('pay-button').isVisible()).toBe(false);
  });
});
