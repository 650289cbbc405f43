import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import { cachedMerchant as cached, queriesDuring, revokeBehindTheCache } from '../../support/round-trips';

/**
 * A merchant request whose credential is cached makes one database round trip: its own statement,
 * which also checks the credential. Every query this process sends to PostgreSQL is counted (the
 * pool's and the credential listener's alike), so a check that came back as a round trip of its
 * own would show. The API runs in this process, alone, without a worker. The payment routes'
 * counts are in round-trips-payments.test.ts.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
}, 120_000);
afterAll(async () => service?.stop());

const api = (merchant: MerchantCredentials, method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/api/v1/customers${path}`, { token: merchant.api_key, body });
const cachedMerchant = async (settings: Record<string, unknown> = {}) => (await cached(service, settings)).merchant;

describe('database round trips of the customer routes, credential cached', () => {
  it('makes one for a create, a search that finds and an update', async () => {
    const merchant = await cachedMerchant();
    const customer = uniqueCustomer();
    const created = await queriesDuring(() => api(merchant, 'POST', '', customer));
    expect([created.result.status, created.queries.length]).toEqual([201, 1]);
    const found = await queriesDuring(() => api(merchant, 'GET', `/search?email=${encodeURIComponent(customer.email)}`));
    expect([found.result.status, found.result.body.results.length, found.queries.length]).toEqual([200, 1, 1]);
    const updated = await queriesDuring(() => api(merchant, 'PATCH', `/${created.result.body.id}`, { first_name: 'Grace' }));
    expect([updated.result.status, updated.queries.length]).toEqual([200, 1]);
  });

  it("answers a search that finds nothing and another merchant's customer after proving the credential (two)", async () => {
    const merchant = await cachedMerchant();
    const others = (await api(await onboard(service), 'POST', '', uniqueCustomer())).body.id as string;
    const none = await queriesDuring(() => api(merchant, 'GET', '/search?email=nobody@example.com'));
    expect([none.result.status, none.result.body.results, none.queries.length]).toEqual([200, [], 2]);
    const missing = await queriesDuring(() => api(merchant, 'PATCH', `/${others}`, { first_name: 'Grace' }));
    expect([missing.result.status, missing.result.body.error, missing.queries.length]).toEqual([422, "Customer not found.", 2]);
  });

  it("catches up before a read-back route under the same path (GET /api/v1/customers/{id}) trusts the key the customer router's guard left to a statement", async () => {
    const merchant = await cachedMerchant();
    const id = (await api(merchant, 'POST', '', uniqueCustomer())).body.id as string;
    const read = await queriesDuring(() => api(merchant, 'GET', `/${id}`));
    expect([read.result.status, read.queries.map((q) => q.sql)[0], read.queries.length]).toEqual([200, 'SELECT 1', 2]);
  });

  it('refuses a key revoked behind the cache on its very next call, and writes nothing', async () => {
    const merchant = await cachedMerchant();
    await revokeBehindTheCache(service, merchant.id);
    const customer = uniqueCustomer();
    const res = await api(merchant, 'POST', '', customer);
    expect([res.status, res.body.error]).toEqual([422, 'API key not found.']);
    expect(await service.deps.db('customers').where({ merchant_id: merchant.id, email: customer.email }).first()).toBeUndefined();
    expect((await api(merchant, 'GET', `/search?email=${encodeURIComponent(customer.email)}`)).status).toBe(422);
    expect((await api(merchant, 'POST', '', { email: 'not-an-email' })).body.error).toBe('API key not found.');
  });

  it('applies settings changed behind the cache on the very next call', async () => {
    const merchant = await cachedMerchant({ customer_fields: 'names_and_email' });
    const emailOnly = () => ({ email: uniqueCustomer().email });
    expect((await api(merchant, 'POST', '', emailOnly())).status).toBe(422);
    const settings = (await service.deps.db('merchants').where({ id: merchant.id }).first()).settings;
    await service.deps.db('merchants').where({ id: merchant.id }).update({ settings: JSON.stringify({ ...settings, customer_fields: 'email_only' }) });
    expect((await api(merchant, 'POST', '', emailOnly())).status).toBe(201);
  });
});
