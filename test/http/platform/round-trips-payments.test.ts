import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { walletView, type CreatedCheckout, type Shop } from '../../support/fixtures';
import { cachedMerchant, queriesDuring, revokeBehindTheCache } from '../../support/round-trips';

/**
 * The database round trips of the payment routes, counted as round-trips.test.ts counts the
 * customer routes': every query this process sends, with a recently used (cached) credential and
 * no Idempotency-Key. The worker runs in this process without its sweepers.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ replicas: 1, sweeps: false });
}, 120_000);
afterAll(async () => service?.stop());

const createCheckout = (shop: Shop) =>
  request<CreatedCheckout>(service.baseUrl, 'POST', '/api/v1/checkouts', { token: shop.merchant.api_key, body: { customer_id: shop.customerId, type: 'deposit', fixed_amount_cents: 700 } });
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
