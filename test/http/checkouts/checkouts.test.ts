import { createHash, randomUUID } from 'node:crypto';
import { MAX_AMOUNT_CENTS } from '../../../src/domain/limits';
import { MAX_LINE_ITEMS } from '../../../src/checkouts/schemas';
import type { Request } from 'express';
import { createCheckout } from '../../../src/checkouts/service';
import { idempotentId } from '../../../src/http/idempotency';
import { findCheckout, findCheckoutByIdUnscoped, updateCheckoutState } from '../../../src/storage/checkouts';
import { findMerchant } from '../../../src/storage/merchants';
import { CHECKOUT_FLOWS } from '../../../src/domain/settings';
import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import { checkoutExpiryWorkflowId } from '../../../workflows/contract';

let service: Service;
let merchant: MerchantCredentials;
let customerId: string;

const create = (body: unknown, token = merchant.api_key) => request(service.baseUrl, 'POST', '/api/v1/checkouts', { token, body });
const newCustomer = async (m: MerchantCredentials) =>
  (await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() })).body.id as string;
const uniqueSku = () => `sku-${randomUUID()}`;
const inline = (overrides: Record<string, unknown> = {}) => ({ name: 'Hat', price_cents: 1250, quantity: 1, ...overrides });

beforeAll(async () => {
  service = await startService();
  merchant = await onboard(service);
  customerId = await newCustomer(merchant);
});
afterAll(async () => service.stop());

const RESOURCE_KEYS = [
  'balance_amount_cents',
  'client_secret',
  'experience',
  'fixed_amount_cents',
  'id',
  'line_items',
  'line_items_total_amount_cents',
  'payment_options',
  'type',
  'url',
];

describe('POST /api/v1/checkouts: the six flows', () => {
  const sub = { interval: 'month', interval_count: 3 };
  it.each<[string, Record<string, unknown>]>([
    ['deposit', { type: 'deposit' }],
    ['preset_deposit', { type: 'deposit', fixed_amount_cents: 2500 }],
    ['purchase', { type: 'deposit', line_items: [inline({ quantity: 2 })] }],
    ['subscription', { type: 'deposit', line_items: [inline()], subscription_data: sub }],
    ['balance_withdrawal', { type: 'withdrawal', balance_amount_cents: 10_000 }],
    ['preset_withdrawal', { type: 'withdrawal', fixed_amount_cents: 700 }],
  ])('creates a %s checkout with exactly the contract keys', async (flow, fields) => {
    const res = await create({ customer_id: customerId, ...fields });
    expect(res.status).toBe(201);
    const subscription = flow === 'subscription';
    expect(Object.keys(res.body).sort()).toEqual([...RESOURCE_KEYS, ...(subscription ? ['subscription'] : [])].sort());
    expect('subscription' in res.body).toBe(subscription);
    // Not paid yet: the subscription the first charge will create, with no id and no period.
    if (subscription) expect(res.body.subscription).toMatchObject({ ...sub, id: null, status: 'incomplete', current_period_end: null, next_charge_at: null });
    const purchase = flow === 'purchase' || subscription;
    expect(res.body).toMatchObject({
      type: fields.type,
      fixed_amount_cents: fields.fixed_amount_cents ?? null,
      balance_amount_cents: fields.balance_amount_cents ?? null,
      line_items_total_amount_cents: purchase ? 1250 * (flow === 'purchase' ? 2 : 1) : null,
      experience: null,
      payment_options: null,
    });
    expect(res.body.line_items).toHaveLength(purchase ? 1 : 0);
    const row = await findCheckout(service.deps.db, merchant.id, res.body.id);
    expect(row).toMatchObject({ flow, state: 'open', currency: 'USD', customer_id: customerId });
  });

  it('answers an unguessable id, a per-checkout client secret and the wallet url carrying it', async () => {
    const res = await create({ customer_id: customerId, type: 'deposit' });
    const { id, client_secret: secret, url } = res.body;
    expect(id).toMatch(/^chk_[A-Za-z0-9]{24}$/);
    expect(secret).toMatch(/^cs_[A-Za-z0-9]{40}$/);
    expect(url).toBe(`${service.deps.config.walletBaseUrl}/checkout/${id}?client_secret=${encodeURIComponent(secret)}`);
    const row = await findCheckoutByIdUnscoped(service.deps.db, id);
    expect(Buffer.from(row!.client_secret_hash)).toEqual(createHash('sha256').update(secret).digest());
    // The client secret is not a merchant credential: it authenticates no API call.
    expect((await create({ customer_id: customerId, type: 'deposit' }, secret)).status).toBe(422);
    const second = await create({ customer_id: customerId, type: 'deposit' });
    expect(second.body.client_secret).not.toBe(secret);
  });

  it('stores expiry from the checkout_expiry_seconds setting and starts the workflow named by the checkout id', async () => {
    const m = await onboard(service, { settings: { checkout_expiry_seconds: 600 } });
    const before = Date.now();
    const res = await create({ customer_id: await newCustomer(m), type: 'withdrawal', fixed_amount_cents: 100 }, m.api_key);
    expect(res.status).toBe(201);
    const row = (await findCheckoutByIdUnscoped(service.deps.db, res.body.id))!;
    expect(row.expires_at.getTime()).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(row.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    // Its deadline's workflow; the checkout's own starts with the first attempt.
    const described = await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(res.body.id)).describe();
    expect(described.type).toBe('checkoutExpiryWorkflow');
    expect(described.taskQueue).toBe(service.backgroundTaskQueue);
  });

  it('starts the workflow without a trace header when tracing is off (test/http/platform/tracing.test.ts: with it on)', async () => {
    expect(service.deps.tracing?.enabled).toBe(false);
    const m = await onboard(service);
    const res = await create({ customer_id: await newCustomer(m), type: 'deposit', fixed_amount_cents: 100 }, m.api_key);
    expect(res.status).toBe(201);
    const history = await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(res.body.id)).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    expect(started.input?.payloads).toHaveLength(1);
    expect(Object.keys(started.header?.fields ?? {})).toEqual([]);
  });

  it('echoes experience and payment_options, and keeps return_url', async () => {
    const res = await create({
      customer_id: customerId,
      type: 'deposit',
      experience: 'iframe',
      payment_options: ['venmo', 'credit_card'],
      return_url: 'https://shop.example/done?x=1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ experience: 'iframe', payment_options: ['venmo', 'credit_card'] });
    const row = await findCheckoutByIdUnscoped(service.deps.db, res.body.id);
    expect(row).toMatchObject({ return_url: 'https://shop.example/done?x=1', payment_options: ['venmo', 'credit_card'], experience: 'iframe' });
  });
});

describe('POST /api/v1/checkouts: refused combinations', () => {
  const items = [inline()];
  const sub = { interval: 'week', interval_count: 2 };
  it.each<[string, Record<string, unknown>]>([
    ['a withdrawal with no amount', { type: 'withdrawal' }],
    ['a withdrawal with both amounts', { type: 'withdrawal', fixed_amount_cents: 1, balance_amount_cents: 2 }],
    ['a withdrawal with line_items', { type: 'withdrawal', fixed_amount_cents: 1, line_items: items }],
    ['a withdrawal with subscription_data', { type: 'withdrawal', balance_amount_cents: 1, subscription_data: sub }],
    ['subscription_data without line_items', { type: 'deposit', subscription_data: sub }],
    ['a deposit with balance_amount_cents', { type: 'deposit', balance_amount_cents: 100 }],
    ['a deposit with two amount fields', { type: 'deposit', fixed_amount_cents: 100, line_items: items }],
    ['a subscription with fixed_amount_cents', { type: 'deposit', fixed_amount_cents: 100, line_items: items, subscription_data: sub }],
    ['a subscription with balance_amount_cents', { type: 'deposit', balance_amount_cents: 100, line_items: items, subscription_data: sub }],
  ])('answers 422 for %s, with a hint naming the flows and their parameters', async (_label, fields) => {
    const res = await create({ customer_id: customerId, ...fields });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^Unsupported parameter combination: /);
    for (const flow of CHECKOUT_FLOWS) expect(res.body.hint).toContain(flow);
    expect(res.body.hint).toContain('balance_amount_cents');
  });

  it('refuses a flow the account has not enabled, naming the enabled flows', async () => {
    const m = await onboard(service, { settings: { checkout_flows: ['deposit', 'preset_withdrawal'] } });
    const customer = await newCustomer(m);
    const res = await create({ customer_id: customer, type: 'deposit', line_items: items }, m.api_key);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('purchase');
    expect(res.body.hint).toBe(
      'Flows enabled for this account: deposit (type deposit with no amount field); preset_withdrawal (type withdrawal with fixed_amount_cents).',
    );
    expect((await create({ customer_id: customer, type: 'withdrawal', balance_amount_cents: 5 }, m.api_key)).status).toBe(422);
    expect((await create({ customer_id: customer, type: 'deposit' }, m.api_key)).status).toBe(201);
    expect((await create({ customer_id: customer, type: 'withdrawal', fixed_amount_cents: 5 }, m.api_key)).status).toBe(201);
  });
});

describe('POST /api/v1/checkouts: payment_options', () => {
  it('names every unsupported option in the exact error and the enabled methods in the hint', async () => {
    const res = await create({ customer_id: customerId, type: 'withdrawal', fixed_amount_cents: 100, payment_options: ['credit_card', 'apple_pay', 'cash', 'crypto'] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      request_id: expect.any(String),
      error: 'Unsupported payment_options: apple_pay, cash, crypto.',
      hint: 'Payment methods enabled for withdrawal checkouts on this account: credit_card, bank_account.',
    });
  });

  it('follows the payment_methods setting per checkout type', async () => {
    const m = await onboard(service, { settings: { payment_methods: { deposit: ['credit_card', 'paypal'], withdrawal: ['bank_account'] } } });
    const customer = await newCustomer(m);
    const deposit = await create({ customer_id: customer, type: 'deposit', payment_options: ['venmo'] }, m.api_key);
    expect(deposit.body).toEqual({ request_id: expect.any(String), error: 'Unsupported payment_options: venmo.', hint: expect.stringContaining('credit_card, paypal.') });
    const allowed = await create({ customer_id: customer, type: 'deposit', payment_options: ['paypal'] }, m.api_key);
    expect(allowed.status).toBe(201);
    const withdrawal = await create({ customer_id: customer, type: 'withdrawal', fixed_amount_cents: 5, payment_options: ['credit_card'] }, m.api_key);
    expect(withdrawal.body.error).toBe('Unsupported payment_options: credit_card.');
  });

  it('defaults to every enabled method, echoed as null', async () => {
    const res = await create({ customer_id: customerId, type: 'deposit' });
    expect(res.body.payment_options).toBeNull();
    expect((await findCheckoutByIdUnscoped(service.deps.db, res.body.id))!.payment_options).toBeNull();
  });

  it.each([
    ['an empty list', []],
    ['a repeated method', ['credit_card', 'credit_card']],
    ['a non-string', [1]],
    ['a non-array', 'credit_card'],
  ])('refuses %s with 422 {error, hint}', async (_label, options) => {
    const res = await create({ customer_id: customerId, type: 'deposit', payment_options: options });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });
});

describe('POST /api/v1/checkouts: line items', () => {
  const purchase = (lineItems: unknown[], token = merchant.api_key, customer = customerId) =>
    create({ customer_id: customer, type: 'deposit', line_items: lineItems }, token);

  it('computes line and checkout totals server-side and answers the documented line shape', async () => {
    const res = await purchase([inline({ price_cents: 199, quantity: 3, sku: 'A-1', url: 'https://img.example/a.png' }), inline({ name: 'Sock', price_cents: 1 })]);
    expect(res.status).toBe(201);
    expect(res.body.line_items_total_amount_cents).toBe(598);
    expect(res.body.line_items[0]).toEqual({
      product_id: expect.stringMatching(/^prod_/),
      name: 'Hat',
      price_cents: 199,
      quantity: 3,
      total_amount_cents: 597,
      sku: 'A-1',
      url: 'https://img.example/a.png',
    });
    expect(res.body.line_items[1]).toMatchObject({ name: 'Sock', total_amount_cents: 1, sku: null, url: null });
  });

  it('stores the webhook line shape plus kind; shipping and tax skus mark their lines', async () => {
    const res = await purchase([inline(), inline({ name: 'Delivery', price_cents: 500, sku: 'shipping' }), inline({ name: 'Sales tax', price_cents: 80, sku: 'tax' })]);
    expect(res.status).toBe(201);
    expect(res.body.line_items_total_amount_cents).toBe(1250 + 500 + 80);
    const row = (await findCheckoutByIdUnscoped(service.deps.db, res.body.id))!;
    expect(row.line_items.map((line) => line.kind)).toEqual(['product', 'shipping', 'tax']);
    expect(Object.keys(row.line_items[0]!).sort()).toEqual(
      ['kind', 'product_id', 'product_name', 'product_price_cents', 'product_url', 'quantity', 'sku', 'total_amount_cents'].sort(),
    );
    expect(row.line_items[1]).toMatchObject({ product_name: 'Delivery', product_price_cents: 500, total_amount_cents: 500, sku: 'shipping' });
    expect(row.line_items_total_amount_cents).toBe(1830);
  });

  it('references an existing product by product_id', async () => {
    const first = await purchase([inline({ name: 'Scarf', price_cents: 300 })]);
    const productId = first.body.line_items[0].product_id;
    const res = await purchase([{ product_id: productId, quantity: 4 }]);
    expect(res.status).toBe(201);
    expect(res.body.line_items).toEqual([{ product_id: productId, name: 'Scarf', price_cents: 300, quantity: 4, total_amount_cents: 1200, sku: null, url: null }]);
  });

  it('refuses a product of another merchant exactly like a missing one, and an inactive product', async () => {
    const other = await onboard(service);
    const foreign = (await purchase([inline()], other.api_key, await newCustomer(other))).body.line_items[0].product_id;
    const res = await purchase([{ product_id: foreign, quantity: 1 }]);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: `Product not found: ${foreign}.`, hint: expect.any(String) });
    const missing = await purchase([{ product_id: 'prod_nope', quantity: 1 }]);
    expect(missing.body).toEqual({ request_id: expect.any(String), error: 'Product not found: prod_nope.', hint: res.body.hint });

    const own = (await purchase([inline()])).body.line_items[0].product_id;
    await service.deps.db('products').where({ id: own }).update({ active: false });
    const inactive = await purchase([{ product_id: own, quantity: 1 }]);
    expect(inactive.status).toBe(422);
    expect(inactive.body).toEqual({ request_id: expect.any(String), error: `Product not active: ${own}.`, hint: expect.any(String) });
  });

  it.each<[string, unknown]>([
    ['quantity 0', inline({ quantity: 0 })],
    ['a fractional quantity', inline({ quantity: 1.5 })],
    ['price_cents 0', inline({ price_cents: 0 })],
    ['a fractional price', inline({ price_cents: 9.99 })],
    ['a price above the maximum', inline({ price_cents: MAX_AMOUNT_CENTS + 1 })],
    ['a missing name', { price_cents: 100, quantity: 1 }],
    ['a missing quantity', { name: 'Hat', price_cents: 100 }],
    ['dedup without sku', inline({ dedup: true })],
    ['a reference with inline fields', { product_id: 'prod_x', quantity: 1, name: 'Hat' }],
    ['a reference with quantity 0', { product_id: 'prod_x', quantity: 0 }],
    ['an unknown field', inline({ colour: 'red' })],
    ['a non-http url', inline({ url: 'javascript:alert(1)' })],
    ['a non-object', 'Hat'],
  ])('refuses a line item with %s (422 {error, hint})', async (_label, lineItem) => {
    const res = await purchase([lineItem]);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('refuses an empty list, more than the maximum lines, and a total above the maximum', async () => {
    expect((await purchase([])).status).toBe(422);
    expect((await purchase(Array.from({ length: MAX_LINE_ITEMS + 1 }, () => inline()))).status).toBe(422);
    expect((await purchase(Array.from({ length: MAX_LINE_ITEMS }, () => inline({ price_cents: 1 })))).status).toBe(201);
    const over = await purchase([inline({ price_cents: MAX_AMOUNT_CENTS }), inline({ price_cents: 1 })]);
    expect(over.status).toBe(422);
    expect(over.body.error).toContain(String(MAX_AMOUNT_CENTS));
  });
});

describe('POST /api/v1/checkouts: dedup', () => {
  const purchase = (lineItems: unknown[]) => create({ customer_id: customerId, type: 'deposit', line_items: lineItems });
  const productsWithSku = (sku: string) => service.deps.db('products').where({ merchant_id: merchant.id, sku });

  it('reuses the product with the same sku and price; a new price or dedup off makes a new one', async () => {
    const sku = uniqueSku();
    const first = (await purchase([inline({ sku, dedup: true, name: 'Original' })])).body.line_items[0];
    const again = (await purchase([inline({ sku, dedup: true, name: 'Renamed' })])).body.line_items[0];
    expect(again.product_id).toBe(first.product_id);
    // A reused product keeps its own name.
    expect(again.name).toBe('Original');
    const otherPrice = (await purchase([inline({ sku, dedup: true, price_cents: 999 })])).body.line_items[0];
    expect(otherPrice.product_id).not.toBe(first.product_id);
    const noDedup = (await purchase([inline({ sku })])).body.line_items[0];
    expect(noDedup.product_id).not.toBe(first.product_id);
    expect(await productsWithSku(sku)).toHaveLength(3);
  });

  it('reuses within one request and never across merchants', async () => {
    const sku = uniqueSku();
    const both = (await purchase([inline({ sku, dedup: true }), inline({ sku, dedup: true, quantity: 2 })])).body;
    expect(both.line_items[0].product_id).toBe(both.line_items[1].product_id);
    const other = await onboard(service);
    const theirs = await create({ customer_id: await newCustomer(other), type: 'deposit', line_items: [inline({ sku, dedup: true })] }, other.api_key);
    expect(theirs.body.line_items[0].product_id).not.toBe(both.line_items[0].product_id);
  });

  // Audit regression: dedup looked only at products created with dedup.
  it('reuses an existing product of the same sku and price that was created without dedup', async () => {
    const sku = uniqueSku();
    const plain = (await purchase([inline({ sku })])).body.line_items[0];
    const deduped = (await purchase([inline({ sku, dedup: true })])).body.line_items[0];
    expect(deduped.product_id).toBe(plain.product_id);
    expect((await purchase([inline({ sku, dedup: true })])).body.line_items[0].product_id).toBe(plain.product_id);
    expect(await productsWithSku(sku)).toHaveLength(1);
  });

  // Audit regression: two checkouts naming the same dedup products in opposite orders waited on
  // each other's inserts in a cycle; PostgreSQL aborted one as a deadlock and the API answered 500.
  it('answers every concurrent checkout when the same dedup lines come in opposite orders', async () => {
    const statuses: number[] = [];
    const long = Array.from({ length: 30 }, () => inline({ sku: uniqueSku(), dedup: true }));
    for (let round = 0; round < 2; round += 1) {
      const lines = round === 0 ? long : long.map((line) => ({ ...line, price_cents: 777 }));
      statuses.push(...(await Promise.all([purchase(lines), purchase([...lines].reverse())])).map((r) => r.status));
    }
    for (let round = 0; round < 15; round += 1) {
      const shipping = inline({ sku: uniqueSku(), dedup: true, price_cents: 100 + round });
      const tax = inline({ sku: uniqueSku(), dedup: true, price_cents: 100 + round });
      statuses.push(...(await Promise.all([purchase([shipping, tax]), purchase([tax, shipping])])).map((r) => r.status));
    }
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    // The lines keep the order given, whatever order their products were made in.
    const res = await purchase([inline({ sku: 'zz-last', dedup: true }), inline({ name: 'Plain' }), inline({ sku: 'aa-first', dedup: true })]);
    expect(res.body.line_items.map((l: { sku: string | null }) => l.sku)).toEqual(['zz-last', null, 'aa-first']);
  }, 60_000);

  it('creates exactly one product under concurrent checkouts', async () => {
    const sku = uniqueSku();
    const results = await Promise.all(Array.from({ length: 8 }, () => purchase([inline({ sku, dedup: true })])));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.line_items[0].product_id)).size).toBe(1);
    expect(await productsWithSku(sku)).toHaveLength(1);
  });
});

describe('POST /api/v1/checkouts: input and authentication', () => {
  it('refuses a customer of another merchant exactly like a missing one', async () => {
    const other = await onboard(service);
    const theirs = await newCustomer(other);
    const res = await create({ customer_id: theirs, type: 'deposit' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: 'Customer not found.', hint: `No customer ${theirs} exists for this business.` });
    const missing = await create({ customer_id: 'cus_missing', type: 'deposit' });
    expect(missing.body).toEqual({ request_id: expect.any(String), error: 'Customer not found.', hint: 'No customer cus_missing exists for this business.' });
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown field', { type: 'deposit', amount: 5 }],
    ['type purchase', { type: 'purchase' }],
    ['a missing type', {}],
    ['an empty customer_id', { type: 'deposit', customer_id: '' }],
    ['fixed_amount_cents 0', { type: 'deposit', fixed_amount_cents: 0 }],
    ['a fractional fixed amount', { type: 'deposit', fixed_amount_cents: 10.5 }],
    ['an amount above the maximum', { type: 'withdrawal', balance_amount_cents: MAX_AMOUNT_CENTS + 1 }],
    ['a string amount', { type: 'withdrawal', fixed_amount_cents: '100' }],
    ['an unknown experience', { type: 'deposit', experience: 'popup' }],
    ['a non-http return_url', { type: 'deposit', return_url: 'ftp://shop.example/done' }],
    ['a bad interval', { type: 'deposit', line_items: [inline()], subscription_data: { interval: 'hour', interval_count: 1 } }],
    ['interval_count 0', { type: 'deposit', line_items: [inline()], subscription_data: { interval: 'month', interval_count: 0 } }],
    ['a period over a year', { type: 'deposit', line_items: [inline()], subscription_data: { interval: 'month', interval_count: 13 } }],
  ])('answers 422 {error, hint} for %s', async (_label, fields) => {
    const res = await create({ customer_id: customerId, ...fields });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('answers 400 for a body that is not JSON, 422 for none', async () => {
    const bad = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: merchant.api_key, rawBody: '{"type":' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
    expect((await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: merchant.api_key })).status).toBe(422);
  });

  it('requires the API key: missing, bare, unknown or client secret is 422 API key not found.', async () => {
    const body = { customer_id: customerId, type: 'deposit' };
    const attempts: Record<string, string>[] = [
      {},
      { authorization: merchant.api_key },
      { authorization: 'Bearer key_unknown' },
      { authorization: `Bearer ${merchant.client_secret}` },
    ];
    for (const headers of attempts) {
      const res = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { headers, body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: 'API key not found.' });
    }
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await request(service.baseUrl, 'GET', '/api/v1/openapi.json')).body;
    const operation = doc.paths['/api/v1/checkouts'].post;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['201', '400', '422']));
    expect(doc.components.schemas.Checkout.required).toEqual(expect.arrayContaining(RESOURCE_KEYS));
    expect(doc.components.schemas.Checkout.required).not.toContain('subscription');
  });
});

describe('crash safety and storage helpers', () => {
  it('ends the started workflow and keeps nothing when the transaction fails', async () => {
    const db = service.deps.db;
    let attempted: string | undefined;
    // The real transaction runs (products and checkout are inserted), then fails before commit.
    const failing = new Proxy(db, {
      get: (target, property, receiver) =>
        property === 'transaction'
          ? (work: (trx: typeof db) => Promise<{ id: string }>) =>
              target.transaction(async (trx) => {
                attempted = (await work(trx)).id;
                throw new Error('database went away');
              })
          : Reflect.get(target, property, receiver),
    });
    const sku = uniqueSku();
    const m = (await findMerchant(db, merchant.id))!;
    const body = { customer_id: customerId, type: 'deposit' as const, line_items: [{ ...inline(), sku, dedup: true }] };
    await expect(createCheckout({ ...service.deps, db: failing }, m, body)).rejects.toThrow('database went away');
    expect(attempted).toMatch(/^chk_/);
    expect((await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(attempted!)).describe()).status.name).toBe('TERMINATED');
    expect(await findCheckoutByIdUnscoped(db, attempted!)).toBeUndefined();
    expect(await db('products').where({ sku })).toHaveLength(0);
  });

  it('checks the customer in the checkout INSERT: a refused customer ends the started workflow and writes nothing', async () => {
    const db = service.deps.db;
    const other = await onboard(service);
    const theirs = await newCustomer(other);
    // The longest id the body allows is longer than any customer's (the column's 40).
    for (const customer of [theirs, `cus_missing_${randomUUID().replace(/-/g, '')}`, `cus_${randomUUID()}`.padEnd(255, 'x')]) {
      // A keyed create: its workflow id is derived from the key, so the test can find it.
      const key = randomUUID();
      const sku = uniqueSku();
      const res = await request(service.baseUrl, 'POST', '/api/v1/checkouts', {
        token: merchant.api_key,
        headers: { 'Idempotency-Key': key },
        body: { customer_id: customer, type: 'deposit', line_items: [inline({ sku, dedup: true })] },
      });
      expect(res.body).toMatchObject({ error: 'Customer not found.', hint: `No customer ${customer} exists for this business.` });
      expect(res.status).toBe(422);
      const workflowId = idempotentId({ idempotency: { scope: `merchant:${merchant.id}`, key } } as Request, 'checkout')!;
      expect((await service.deps.temporal.workflow.getHandle(checkoutExpiryWorkflowId(workflowId)).describe()).status.name).toBe('TERMINATED');
      expect(await findCheckoutByIdUnscoped(db, workflowId)).toBeUndefined();
      // The line's product would have been made in the same transaction: rolled back with it.
      expect(await db('products').where({ sku })).toHaveLength(0);
      expect(await db('checkouts').where({ customer_id: customer })).toHaveLength(0);
    }
  });

  it('updateCheckoutState moves only from the given states', async () => {
    const id = (await create({ customer_id: customerId, type: 'deposit' })).body.id;
    expect(await updateCheckoutState(service.deps.db, id, ['in_review'], 'completed')).toBeUndefined();
    const blocked = await updateCheckoutState(service.deps.db, id, ['open', 'in_review'], 'blocked', { blocked_reason: 'test' });
    expect(blocked).toMatchObject({ id, state: 'blocked', blocked_reason: 'test' });
    expect(await updateCheckoutState(service.deps.db, 'chk_missing', ['open'], 'expired')).toBeUndefined();
    expect(await findCheckout(service.deps.db, 'mer_other', id)).toBeUndefined();
  });
});
