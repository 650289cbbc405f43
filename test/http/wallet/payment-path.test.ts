import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { attempt, CARD, createCheckout, openShop, type CreatedCheckout, type Shop } from '../../support/fixtures';

// The reads one card deposit makes, from the wallet's POST to the end of its checkout's workflow.
// Here the API and the worker run in one process on one pool, so each count is the pair's: a row
// read once by each process counts 2. Sweeps are slowed so only the attempt's own statements count.
let service: Service;
beforeAll(async () => {
  const hour = String(60 * 60 * 1000);
  service = await startService({ replicas: 1, env: { EXPIRY_SWEEP_MS: hour, OUTBOX_SWEEP_MS: hour, RECONCILE_SWEEP_MS: hour } });
});
afterAll(async () => service.stop());

const COUNTED_TABLES = ['checkouts', 'customers', 'payment_methods', 'kyc_records', 'geo_checks'] as const;
type Reads = Record<(typeof COUNTED_TABLES)[number], number>;

/** The tables a SELECT reads, each once (those it names after FROM or JOIN; a locking read counts as a read); none for any other statement. */
function tablesRead(sql: string): string[] {
  if (!/^\s*select\b/i.test(sql)) return [];
  return [...new Set([...sql.matchAll(/\b(?:from|join)\s+"?(\w+)"?/gi)].map((match) => match[1]!))];
}

/** Pays the checkout by card and counts the SELECTs that name its merchant, customer or checkout until its workflow ends. */
async function readsOfOneAttempt(shop: Shop, checkout: CreatedCheckout): Promise<Reads> {
  const ours = new Set([shop.merchant.id, shop.customerId, checkout.id]);
  const reads = Object.fromEntries(COUNTED_TABLES.map((table) => [table, 0])) as Reads;
  const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
    if (!(query.bindings ?? []).some((value) => ours.has(value as string))) return;
    for (const table of tablesRead(query.sql)) if (table in reads) reads[table as keyof Reads] += 1;
  };
  service.deps.db.on('query', onQuery);
  try {
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);
    expect(res.body.charge.status).toBe('succeeded');
    await service.deps.temporal.workflow.getHandle(checkout.id).result();
  } finally {
    service.deps.db.removeListener('query', onQuery);
  }
  return reads;
}

describe('the reads of one card attempt', () => {
  it('at a merchant that requires neither KYC nor geo: no KYC or geo row, and the checkout and customer once per process', async () => {
    const shop = await openShop(service, { kyc_required_for: [], geo_required_for: [] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    // The API: the checkout (its client secret) and the customer (the answer). The worker: the
    // checkout, the customer (the gates) and the method the API stored; the charge's commit reuses them.
    expect(await readsOfOneAttempt(shop, checkout)).toEqual({ checkouts: 2, customers: 2, payment_methods: 1, kyc_records: 0, geo_checks: 0 });
  });

  it('at a merchant that requires both for deposits: the latest KYC record and geo check are read, once', async () => {
    const shop = await openShop(service, { kyc_required_for: ['deposit'], geo_required_for: ['deposit'] });
    const kyc = await request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', {
      token: shop.merchant.api_key,
      body: {
        customer_id: shop.customerId, first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-01-01', address_line_1: '1 Main St',
        city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true,
      },
    });
    expect(kyc.status).toBeLessThan(300);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    const ping = await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, {
      body: { latitude: 40.7128, longitude: -74.006 },
      headers: { 'x-client-secret': checkout.client_secret },
    });
    expect(ping.body.geo_check.passed).toBe(true);
    expect(await readsOfOneAttempt(shop, checkout)).toEqual({ checkouts: 2, customers: 2, payment_methods: 1, kyc_records: 1, geo_checks: 1 });
  });
});
