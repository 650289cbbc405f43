import { randomBytes } from 'node:crypto';
import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';

let service: Service;
let merchant: MerchantCredentials;

interface Checkout {
  id: string;
  url: string;
  client_secret: string;
}

const suffix = () => randomBytes(8).toString('hex');

async function newCustomer(m: MerchantCredentials = merchant): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() });
  if (res.status !== 201) throw new Error(`customer create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function newCheckout(body: Record<string, unknown>, m: MerchantCredentials = merchant): Promise<Checkout & { customer_id: string }> {
  const customer_id = (body.customer_id as string | undefined) ?? (await newCustomer(m));
  const res = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: m.api_key, body: { customer_id, ...body } });
  if (res.status !== 201) throw new Error(`checkout create failed: ${res.status} ${res.text}`);
  return { ...res.body, customer_id };
}

const walletGet = (id: string, secret: string | undefined, headers: Record<string, string> = {}) =>
  request(service.baseUrl, 'GET', `/wallet/v1/checkouts/${id}`, { headers: { ...(secret === undefined ? {} : { 'x-client-secret': secret }), ...headers } });

async function read(checkout: Checkout) {
  const res = await walletGet(checkout.id, checkout.client_secret);
  expect(res.status).toBe(200);
  return res.body;
}

/** A charge row of checkout `c`, paid with the payment method `paymentMethodId`; `fields` says the rest. */
function chargeRow(
  c: { id: string; customer_id: string },
  paymentMethodId: string,
  fields: { amount_cents: number; transaction_type: 'credit' | 'debit'; status: string; id?: string; created_at?: string; updated_at?: string },
) {
  return {
    id: `ch_${suffix()}`,
    merchant_id: merchant.id,
    checkout_id: c.id,
    customer_id: c.customer_id,
    payment_method_id: paymentMethodId,
    attempt_key: `att_${suffix()}`,
    currency: 'USD',
    processor: 'sandbox_alpha',
    ...fields,
  };
}

async function insertSavedCard(customerId: string, merchantId = merchant.id): Promise<string> {
  const id = `pm_${suffix()}`;
  await service.deps.db('payment_methods').insert({
    id,
    merchant_id: merchantId,
    customer_id: customerId,
    payment_type: 'card',
    details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 } }),
    fingerprint: `fp_${suffix()}`,
    processor_token: 'sbx_x',
    saved: true,
  });
  return id;
}

const ALL_DEPOSIT_METHODS = ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'];
const WALLET_KEYS = [
  'amount_due_cents',
  'balance_amount_cents',
  'charges',
  'currency',
  'expires_at',
  'experience',
  'fixed_amount_cents',
  'flow',
  'geo_required',
  'id',
  'line_items',
  'line_items_total_amount_cents',
  'merchant',
  'payment_options',
  'preselected_method',
  'return_url',
  'review',
  'review_threshold_cents',
  'sandbox',
  'saved_payment_methods',
  'state',
  'subscription',
  'type',
].sort();

beforeAll(async () => {
  service = await startService({ worker: false });
  merchant = await onboard(service, { name: 'Acme Games' });
});
afterAll(async () => service.stop());

describe('wallet authentication', () => {
  it('answers 422 "Client secret not found." for a missing, wrong or other checkout\'s secret', async () => {
    const a = await newCheckout({ type: 'deposit' });
    const b = await newCheckout({ type: 'deposit' });
    for (const res of [
      await walletGet(a.id, undefined),
      await walletGet(a.id, 'secret_wrong'),
      await walletGet(a.id, b.client_secret),
      await walletGet('chk_doesnotexist', a.client_secret),
      // The merchant's API key is not a checkout secret either.
      await walletGet(a.id, merchant.api_key),
    ]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: 'Client secret not found.' });
    }
  });

  it('accepts the client_secret from the checkout url', async () => {
    const c = await newCheckout({ type: 'deposit' });
    const secret = new URL(c.url).searchParams.get('client_secret');
    expect(secret).toBe(c.client_secret);
    expect((await walletGet(c.id, secret!)).status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight from any origin, allowing X-Client-Secret', async () => {
    const c = await newCheckout({ type: 'deposit' });
    for (const path of [`/wallet/v1/checkouts/${c.id}`, `/wallet/v1/checkouts/${c.id}/attempts`]) {
      const res = await fetch(service.baseUrl + path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example.com',
          'access-control-request-method': path.endsWith('attempts') ? 'POST' : 'GET',
          'access-control-request-headers': 'x-client-secret,content-type',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toMatch(/GET/);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-client-secret');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    }
  });

  it('lets a browser send the headers it adds, X-Request-Id or trace context, as permissive CORS does (audit)', async () => {
    // Audit regression: the preflight allowed only Content-Type, X-Client-Secret and Idempotency-Key,
    // so a merchant front end adding its own X-Request-Id or a tracing header could not call the wallet API.
    const c = await newCheckout({ type: 'deposit' });
    const res = await fetch(`${service.baseUrl}/wallet/v1/checkouts/${c.id}/attempts`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-client-secret, content-type, x-request-id, traceparent' },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['x-client-secret', 'content-type', 'x-request-id', 'traceparent']) expect(allowed).toContain(header);
  });

  it('marks answers, including the 422, as readable from any origin', async () => {
    const c = await newCheckout({ type: 'deposit' });
    const ok = await walletGet(c.id, c.client_secret, { origin: 'https://shop.example.com' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const refused = await walletGet(c.id, 'secret_wrong', { origin: 'https://shop.example.com' });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('GET /wallet/v1/checkouts/{id}', () => {
  it('shows a deposit: the customer picks the amount, every enabled method is offered', async () => {
    const c = await newCheckout({ type: 'deposit' });
    const body = await read(c);
    expect(Object.keys(body).sort()).toEqual(WALLET_KEYS);
    expect(body).toMatchObject({
      id: c.id,
      type: 'deposit',
      flow: 'deposit',
      state: 'open',
      currency: 'USD',
      merchant: { name: 'Acme Games' },
      fixed_amount_cents: null,
      balance_amount_cents: null,
      line_items: [],
      line_items_total_amount_cents: null,
      subscription: null,
      amount_due_cents: null,
      payment_options: ALL_DEPOSIT_METHODS,
      saved_payment_methods: [],
      preselected_method: null,
      experience: null,
      return_url: null,
      geo_required: false,
      review: null,
      charges: [],
    });
    expect(new Date(body.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(body.expires_at).toISOString()).toBe(body.expires_at);
    // No secret, hash or internal column leaks into the page's data.
    expect(JSON.stringify(body)).not.toMatch(/client_secret|secret_hash|merchant_id|blocked_reason/);
  });

  it('shows a preset deposit: the amount due is the preset amount', async () => {
    const c = await newCheckout({ type: 'deposit', fixed_amount_cents: 2500, experience: 'iframe', return_url: 'https://shop.example.com/done' });
    const body = await read(c);
    expect(body).toMatchObject({
      flow: 'preset_deposit',
      fixed_amount_cents: 2500,
      amount_due_cents: 2500,
      experience: 'iframe',
      return_url: 'https://shop.example.com/done',
    });
  });

  it('shows a purchase with its lines, shipping and tax marked as such, and the total due', async () => {
    const c = await newCheckout({
      type: 'deposit',
      line_items: [
        { name: 'Blue mug', price_cents: 1200, quantity: 2, sku: `mug-${suffix()}`, url: 'https://cdn.example.com/mug.png' },
        { name: 'Shipping', price_cents: 500, quantity: 1, sku: 'shipping' },
        { name: 'Sales tax', price_cents: 198, quantity: 1, sku: 'tax' },
      ],
    });
    const body = await read(c);
    expect(body.flow).toBe('purchase');
    expect(body.line_items).toEqual([
      {
        product_id: expect.stringMatching(/^prod_/),
        name: 'Blue mug',
        price_cents: 1200,
        quantity: 2,
        total_amount_cents: 2400,
        sku: expect.stringMatching(/^mug-/),
        url: 'https://cdn.example.com/mug.png',
        kind: 'product',
      },
      { product_id: expect.stringMatching(/^prod_/), name: 'Shipping', price_cents: 500, quantity: 1, total_amount_cents: 500, sku: 'shipping', url: null, kind: 'shipping' },
      { product_id: expect.stringMatching(/^prod_/), name: 'Sales tax', price_cents: 198, quantity: 1, total_amount_cents: 198, sku: 'tax', url: null, kind: 'tax' },
    ]);
    expect(body.line_items_total_amount_cents).toBe(3098);
    expect(body.amount_due_cents).toBe(3098);
    expect(body.subscription).toBeNull();
  });

  it('shows a subscription with its interval, amount and that the method is saved for renewals', async () => {
    const c = await newCheckout({
      type: 'deposit',
      line_items: [{ name: 'Pro plan', price_cents: 3000, quantity: 1 }],
      subscription_data: { interval: 'month', interval_count: 3 },
    });
    const body = await read(c);
    expect(body).toMatchObject({
      flow: 'subscription',
      subscription: { interval: 'month', interval_count: 3, amount_cents: 3000, saved_for_renewals: true },
      amount_due_cents: 3000,
      line_items_total_amount_cents: 3000,
    });
  });

  it('shows a balance withdrawal: no amount due, the balance as the ceiling, withdrawal methods', async () => {
    const c = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 });
    const body = await read(c);
    expect(body).toMatchObject({
      type: 'withdrawal',
      flow: 'balance_withdrawal',
      balance_amount_cents: 10_000,
      fixed_amount_cents: null,
      amount_due_cents: null,
      payment_options: ['credit_card', 'bank_account'],
      preselected_method: null,
    });
  });

  it('shows a preset withdrawal with its amount due', async () => {
    const c = await newCheckout({ type: 'withdrawal', fixed_amount_cents: 4000 });
    expect(await read(c)).toMatchObject({ flow: 'preset_withdrawal', amount_due_cents: 4000, balance_amount_cents: null });
  });
});

describe('payment options and saved methods', () => {
  it('offers the checkout\'s own payment_options when given, else the merchant\'s enabled methods', async () => {
    const m = await onboard(service, {
      name: 'Narrow Methods',
      settings: { payment_methods: { deposit: ['credit_card', 'paypal'], withdrawal: ['bank_account'] } },
    });
    expect((await read(await newCheckout({ type: 'deposit' }, m))).payment_options).toEqual(['credit_card', 'paypal']);
    expect((await read(await newCheckout({ type: 'withdrawal', balance_amount_cents: 500 }, m))).payment_options).toEqual(['bank_account']);
    const explicit = await newCheckout({ type: 'deposit', payment_options: ['paypal', 'credit_card'] }, m);
    expect((await read(explicit)).payment_options).toEqual(['paypal', 'credit_card']);
  });

  it('preselects a wallet method when it is the only one offered, and only then', async () => {
    for (const method of ['apple_pay', 'google_pay', 'paypal', 'venmo']) {
      const body = await read(await newCheckout({ type: 'deposit', payment_options: [method] }));
      expect(body.payment_options).toEqual([method]);
      expect(body.preselected_method).toBe(method);
    }
    expect((await read(await newCheckout({ type: 'deposit', payment_options: ['credit_card'] }))).preselected_method).toBeNull();
    expect((await read(await newCheckout({ type: 'deposit', payment_options: ['paypal', 'venmo'] }))).preselected_method).toBeNull();
  });

  it('shows the customer\'s saved methods, and hides those of a type the checkout does not offer', async () => {
    const customerId = await newCustomer();
    const pmId = await insertSavedCard(customerId);

    const offered = await read(await newCheckout({ type: 'deposit', customer_id: customerId }));
    expect(offered.saved_payment_methods).toEqual([
      {
        id: pmId,
        payment_type: 'card',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        saved: true,
        fingerprint: expect.stringMatching(/^fp_/),
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
        bank_account: null,
        crypto_wallet: null,
      },
    ]);
    // The processor token never reaches the page.
    expect(JSON.stringify(offered)).not.toContain('sbx_x');

    const excluded = await read(await newCheckout({ type: 'deposit', customer_id: customerId, payment_options: ['bank_account', 'paypal'] }));
    expect(excluded.saved_payment_methods).toEqual([]);

    const cardOnly = await read(await newCheckout({ type: 'deposit', customer_id: customerId, payment_options: ['credit_card'] }));
    expect(cardOnly.saved_payment_methods.map((pm: { id: string }) => pm.id)).toEqual([pmId]);
  });

  it('shows no other customer\'s saved methods', async () => {
    await insertSavedCard(await newCustomer());
    expect((await read(await newCheckout({ type: 'deposit' }))).saved_payment_methods).toEqual([]);
  });
});

describe('geo, review and charges', () => {
  it('says whether a geo check is required for the checkout type', async () => {
    const m = await onboard(service, { settings: { geo_required_for: ['withdrawal'] } });
    expect((await read(await newCheckout({ type: 'withdrawal', balance_amount_cents: 900 }, m))).geo_required).toBe(true);
    expect((await read(await newCheckout({ type: 'deposit' }, m))).geo_required).toBe(false);
  });

  it('shows the review and the charges, oldest first', async () => {
    const c = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 });
    const db = service.deps.db;
    const pmId = await insertSavedCard(c.customer_id);
    const reviewId = `cpilr_${suffix()}`;
    await db('reviews').insert({ id: reviewId, merchant_id: merchant.id, checkout_id: c.id, customer_id: c.customer_id, payment_method_id: pmId, amount_cents: 700 });
    const charge = (id: string, status: string, createdAt: string) =>
      chargeRow(c, pmId, { id, amount_cents: 700, transaction_type: 'debit', status, created_at: createdAt, updated_at: createdAt });
    const older = `ch_${suffix()}`;
    const newer = `ch_${suffix()}`;
    await db('charges').insert([charge(newer, 'held', '2030-01-01T00:00:02Z'), charge(older, 'failed', '2030-01-01T00:00:01Z')]);

    const body = await read(c);
    expect(body.review).toEqual({ id: reviewId, status: 'pending', amount_cents: expect.any(Number), charge_id: null });
    expect(body.charges.map((ch: { id: string }) => ch.id)).toEqual([older, newer]);
    expect(body.charges[1]).toMatchObject({
      id: newer,
      amount_cents: 700,
      transaction_type: 'debit',
      currency: 'USD',
      status: 'held',
      failure_code: null,
      checkout_id: c.id,
      customer: { id: c.customer_id },
      payment_method: { id: pmId, payment_type: 'card', card: { last4: '4242' } },
    });
  });

  it('shows a withdrawal in review past the deadline it had before the review as an unfinished checkout (audit)', async () => {
    // Audit regression: a pending review pauses the deadline (expires_at stays the old one until
    // the approval sets a new one), but the read took any checkout past expires_at for finished:
    // in review it showed no saved payment methods and each charge's customer as {id} only,
    // though an approval reopens it and the page offers the form again after a failed payout.
    const c = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 });
    const db = service.deps.db;
    const pmId = await insertSavedCard(c.customer_id);
    await db('charges').insert(chargeRow(c, pmId, { amount_cents: 500, transaction_type: 'debit', status: 'failed' }));
    await db('reviews').insert({ id: `cpilr_${suffix()}`, merchant_id: merchant.id, checkout_id: c.id, customer_id: c.customer_id, payment_method_id: pmId, amount_cents: 700 });
    await db('checkouts').where({ id: c.id }).update({ state: 'in_review', expiry_remaining_ms: 60_000, expires_at: new Date(Date.now() - 60_000) });

    const body = await read(c);
    expect(body).toMatchObject({ state: 'in_review', expires_at: null });
    expect(body.saved_payment_methods.map((pm: { id: string }) => pm.id)).toEqual([pmId]);
    expect(body.charges[0].customer).toMatchObject({ id: c.customer_id, email: expect.stringContaining('@') });
  });

  it('reads a blocked checkout like a completed or expired one: no saved methods, each charge\'s customer as {id} (audit)', async () => {
    // Audit regression: a checkout blocked by a geo or KYC gate takes no attempt ever again, as a
    // completed or expired one, and its link lives on the same way, but its read still listed the
    // customer's saved payment methods and each charge's customer with email, phone and name.
    const c = await newCheckout({ type: 'deposit' });
    const db = service.deps.db;
    const pmId = await insertSavedCard(c.customer_id);
    await db('charges').insert(chargeRow(c, pmId, { amount_cents: 500, transaction_type: 'credit', status: 'failed' }));
    await db('checkouts').where({ id: c.id }).update({ state: 'blocked', blocked_reason: 'geo_check_stale' });

    const body = await read(c);
    expect(body.state).toBe('blocked');
    expect(body.saved_payment_methods).toEqual([]);
    expect(body.charges[0].customer).toEqual({ id: c.customer_id });
  });
});

describe('the hosted page', () => {
  it('serves the page with headers that let any site frame it and use payments', async () => {
    const c = await newCheckout({ type: 'deposit', experience: 'iframe' });
    const res = await fetch(c.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(res.headers.get('permissions-policy')).toBe('payment=*');
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    // The URL carries the secret; no cache keeps a copy of the page for it.
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('wallet-assets/wallet.js');
    expect(html).toContain('data-testid="pay-button"');
  });

  // Audit regression: every checkout's page let any site frame it (frame-ancestors *), so a site
  // holding a link could lay the page, a saved card preselected, under its own buttons. Only a
  // checkout made for an iframe (experience: iframe, as the contract says in-frame payment needs) may be framed.
  it('refuses framing for a checkout not made for an iframe, and for an unknown id', async () => {
    const pages: Array<[string, string]> = [];
    for (const experience of ['web', 'webview', undefined]) {
      const c = await newCheckout({ type: 'deposit', ...(experience ? { experience } : {}) });
      pages.push([`experience ${experience ?? 'omitted'}`, c.url]);
    }
    pages.push(['an unknown checkout', `${service.baseUrl}/checkout/chk_unknown?client_secret=cs_x`]);
    for (const [name, url] of pages) {
      const res = await fetch(url);
      expect([name, res.status]).toEqual([name, 200]);
      expect([name, res.headers.get('content-security-policy')]).toEqual([name, expect.stringContaining("frame-ancestors 'none'")]);
      expect([name, res.headers.get('x-frame-options')]).toEqual([name, 'DENY']);
      expect([name, res.headers.get('referrer-policy'), res.headers.get('cache-control')]).toEqual([name, 'no-referrer', 'no-store']);
    }
  });

  it('serves the script and the stylesheet', async () => {
    const js = await fetch(`${service.baseUrl}/wallet-assets/wallet.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    const css = await fetch(`${service.baseUrl}/wallet-assets/wallet.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
  });

  // Audit regression: the page's HTML was also served as an asset, /wallet-assets/index.html,
  // without the page's headers (no CSP, no framing rule, cached for 5 minutes).
  it('serves the page only under /checkout/{id}, never as an asset', async () => {
    for (const path of ['/wallet-assets/index.html', '/wallet-assets/INDEX.HTML', '/wallet-assets/', '/wallet-assets']) {
      const res = await request(service.baseUrl, 'GET', path);
      expect([path, res.status, res.body?.error]).toEqual([path, 404, 'Not found.']);
    }
  });
});

describe('the wallet view in the OpenAPI document (audit)', () => {
  // Audit regression: the document's WalletCheckout gave expires_at as a date-time string, but the
  // view answers null while a withdrawal is in review (its expiry is paused): a client validating
  // the wallet's answer against the document rejected every checkout in review.
  it('describes the view of a checkout in review, whose expires_at is null, and of an open one', async () => {
    const { WalletCheckout } = await import('../../../src/wallet/openapi');
    const c = await newCheckout({ type: 'withdrawal', balance_amount_cents: 10_000 });
    await service.deps.db('checkouts').where({ id: c.id }).update({ state: 'in_review', expiry_remaining_ms: 60_000 });
    const inReview = await read(c);
    expect(inReview).toMatchObject({ state: 'in_review', expires_at: null });
    expect(WalletCheckout.safeParse(inReview).error?.issues).toBeUndefined();
    expect(WalletCheckout.safeParse(await read(await newCheckout({ type: 'deposit' }))).error?.issues).toBeUndefined();
  });
});
