import { startService, type Service } from '../../support/harness';
import { request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import { attempt, CARD, recordedEvents, waitFor, walletView, type CreatedCheckout, type Shop } from '../../support/fixtures';
import { allOverlap, cachedMerchant, inSeries, queriesDuring, revokeBehindTheCache } from '../../support/round-trips';

/**
 * The database round trips of the payment routes, counted as round-trips.test.ts counts the
 * customer routes': every query this process sends, with a recently used (cached) credential and
 * no Idempotency-Key. The worker runs in this process without its sweepers, so an attempt's
 * statements are counted too, the worker's (its activities') apart from the API's. "In series":
 * queries sent together (Promise.all) count once.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ replicas: 1, sweeps: false });
}, 120_000);
afterAll(async () => service?.stop());

const NYC = { latitude: 40.7128, longitude: -74.006 };
const createCheckout = (shop: Shop) =>
  request<CreatedCheckout>(service.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 700 } });
const ping = (merchant: MerchantCredentials, customerId: string) =>
  request(service.baseUrl, 'POST', '/api/v1/device_pings', { token: merchant.client_secret, body: { ...NYC, customer_id: customerId } });
const newCustomer = async (shop: Shop): Promise<string> => (await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: uniqueCustomer() })).body.id;
const checkoutsOf = async (merchantId: string) => Number((await service.deps.db('checkouts').where({ merchant_id: merchantId }).count({ n: '*' }))[0]!.n);

/** Changes a setting directly in the database: no announcement reaches the cache. */
async function changeBehindTheCache(merchantId: string, change: Record<string, unknown>): Promise<void> {
  const { settings } = await service.deps.db('merchants').where({ id: merchantId }).first();
  await service.deps.db('merchants').where({ id: merchantId }).update({ settings: JSON.stringify({ ...settings, ...change }) });
}

/** A merchant whose API key and wallet merchant are cached, and an open preset checkout of theirs. */
async function shopWithCheckout(settings: Record<string, unknown> = {}): Promise<{ shop: Shop; checkout: CreatedCheckout }> {
  const shop = await cachedMerchant(service, settings);
  expect((await walletView(service, (await createCheckout(shop)).body)).status).toBe(200); // the merchant, cached at its version
  return { shop, checkout: (await createCheckout(shop)).body };
}

describe('POST /api/v1/checkouts (preset amount)', () => {
  it('makes one round trip: the INSERT, which also checks the key and the customer (besides the workflow start)', async () => {
    const { shop } = await shopWithCheckout();
    const created = await queriesDuring(() => createCheckout(shop));
    expect([created.result.status, created.queries.map((q) => q.sql.split('(')[0]!.trim())]).toEqual([201, ['INSERT INTO checkouts']]);
  });

  it('refuses a key revoked behind the cache on its very next call, and records no checkout', async () => {
    const { shop } = await shopWithCheckout();
    const before = await checkoutsOf(shop.merchant.id);
    await revokeBehindTheCache(service, shop.merchant.id);
    const res = await createCheckout(shop);
    expect([res.status, res.body.error]).toEqual([422, 'API key not found.']);
    expect(await checkoutsOf(shop.merchant.id)).toBe(before);
  });

  it('applies settings changed behind the cache on the very next call', async () => {
    const { shop } = await shopWithCheckout();
    await changeBehindTheCache(shop.merchant.id, { checkout_flows: ['deposit'] });
    const res = await createCheckout(shop);
    expect([res.status, res.body.error]).toEqual([422, 'Unsupported parameter combination: the preset_deposit flow is not enabled for this account.']);
  });
});

describe('GET /wallet/v1/checkouts/{id}', () => {
  it("makes one round trip in series: the checkout's lookup (with its merchant's version) beside the view's three reads", async () => {
    const { checkout } = await shopWithCheckout();
    const read = await queriesDuring(() => walletView(service, checkout));
    expect([read.result.status, read.queries.length, inSeries(read.queries), allOverlap(read.queries)]).toEqual([200, 4, 1, true]);
  });

  it("reads each charge's customer and method in a second round trip", async () => {
    const { checkout } = await shopWithCheckout();
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    const read = await queriesDuring(() => walletView(service, checkout));
    expect([read.result.status, read.result.body.charges.length, read.queries.length, inSeries(read.queries)]).toEqual([200, 1, 6, 2]);
  });
});

describe('POST /wallet/v1/checkouts/{id}/attempts (a card)', () => {
  it("makes three round trips in series in the API (lookup, admission, the method's INSERT; the customer read beside the admission) and four statements in the worker, one after the other", async () => {
    const { checkout } = await shopWithCheckout();
    const paid = await queriesDuring(
      () => attempt(service, checkout, { payment_method: CARD() }),
      async () => {
        await waitFor(async () => (await recordedEvents(service, checkout.id)).length > 0, 10_000, 'the charge recorded');
        await new Promise((resolve) => setTimeout(resolve, 500)); // anything the worker still does for it
      },
    );
    expect([paid.result.status, paid.queries.length, inSeries(paid.queries)]).toEqual([201, 4, 3]);
    // Knex's texts quote names and prepared ones do not: compare without quotes, in one case.
    expect(paid.queries.map((q) => q.sql.slice(0, 60).replaceAll('"', '').toLowerCase())).toEqual([
      expect.stringContaining('merchant_version'),
      expect.stringContaining('from customers'),
      expect.stringContaining('with logged as'),
      expect.stringContaining('insert into payment_methods'),
    ]);
    // The lookup, the first of every wallet call, is prepared once per connection.
    expect(paid.queries[0]!.prepared).toBe(true);
    // The plan's four rows (and the merchant row's version) in one statement; then the charge's
    // INSERT, the processor's call, and the move in one statement (no transaction around it), its
    // events made from the merchant as the plan read it while that row is unchanged.
    expect([paid.worker.length, inSeries(paid.worker)]).toEqual([4, 4]);
    expect(paid.worker[0]!.sql).toMatch(/^SELECT ch\.\*, m\.\*, p\.\*, c\.\*, m\.xmin::text AS merchant_version FROM checkouts ch/);
    const move = paid.worker[3]!.sql.replaceAll('"', '').toLowerCase();
    expect(move).toMatch(/^with moved as \(update charges .* from merchants m where .* m\.xmin::text = .* completed as \(update checkouts .* recorded as \(insert into events/);
    expect(paid.worker.map((q) => q.sql.trim().split(/\s/)[0]!.toUpperCase())).not.toContain('BEGIN;');
  });

  it("applies the merchant's settings changed behind the cache on the very next attempt", async () => {
    const { shop, checkout } = await shopWithCheckout();
    await changeBehindTheCache(shop.merchant.id, { payment_methods: { deposit: ['bank_account'], withdrawal: ['bank_account'] } });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect([res.status, res.body.error]).toEqual([422, 'Payment method credit_card is not offered for this checkout.']);
  });
});

describe('POST /api/v1/device_pings', () => {
  it('makes one round trip for a recent geo check, five in series for a fresh one (the lock and the evaluation in a transaction)', async () => {
    const { shop } = await shopWithCheckout();
    const customerId = await newCustomer(shop);
    // The client secret, cached (again after the first ping, which may outlast the cache's TTL loading the geo data).
    for (let i = 0; i < 2; i++) expect((await ping(shop.merchant, shop.customerId)).status).toBe(201);
    const fresh = await queriesDuring(() => ping(shop.merchant, customerId));
    expect(fresh.queries.map((q) => q.sql.trim().split(/\s/)[0])).toEqual(['WITH', 'BEGIN;', 'SELECT', 'WITH', 'COMMIT;']);
    expect([fresh.result.status, fresh.result.body.geo_check.cached, inSeries(fresh.queries)]).toEqual([201, false, 5]);
    const recent = await queriesDuring(() => ping(shop.merchant, customerId));
    expect([recent.result.status, recent.result.body.geo_check.cached, recent.queries.map((q) => q.sql.trim().split(/\s/)[0])]).toEqual([201, true, ['WITH']]);
  });

  it('refuses a client secret revoked behind the cache on its very next call, and records no ping', async () => {
    const { shop } = await shopWithCheckout();
    expect((await ping(shop.merchant, shop.customerId)).status).toBe(201);
    await revokeBehindTheCache(service, shop.merchant.id);
    const res = await ping(shop.merchant, shop.customerId);
    expect([res.status, res.body.error]).toEqual([422, 'Client secret not found.']);
    expect(await service.deps.db('device_pings').where({ customer_id: shop.customerId })).toHaveLength(1);
  });

  it('applies settings changed behind the cache on the very next call', async () => {
    const { shop } = await shopWithCheckout();
    expect((await ping(shop.merchant, shop.customerId)).status).toBe(201);
    await changeBehindTheCache(shop.merchant.id, { device_pings_enabled: false });
    expect((await ping(shop.merchant, shop.customerId)).status).toBe(404);
  });
});
