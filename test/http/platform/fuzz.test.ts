import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { createCheckout, openShop, type Shop, type CreatedCheckout } from '../../support/fixtures';

/**
 * Bad input never yields a 500: every endpoint gets a few hundred generated bodies, query
 * strings and paths (deterministic seed) and must answer in the contract's shape.
 */
let service: Service;
let shop: Shop;
let checkout: CreatedCheckout;
beforeAll(async () => {
  service = await startService();
  shop = await openShop(service);
  checkout = await createCheckout(service, shop, { type: 'deposit' });
});
afterAll(async () => service.stop());

function prng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const SCALARS = [null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53, '', ' ', 'x'.repeat(5000), '💳', '\u0000', '0', '4242424242424242', '2026-02-30', '<script>', "' OR 1=1 --", [], {}];
const KEYS = ['email', 'first_name', 'last_name', 'phone_number', 'date_of_birth', 'internal_id', 'customer_id', 'type', 'line_items', 'fixed_amount_cents',
  'balance_amount_cents', 'payment_options', 'experience', 'return_url', 'subscription_data', 'latitude', 'longitude', 'amount_cents', 'payment_method',
  'save_payment_method', 'provider', 'verified', 'country', 'state', 'last_four_ssn', '__proto__', 'constructor', 'to', 'name', 'settings', 'environment'];

function value(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 2 || r < 0.55) return SCALARS[Math.floor(rand() * SCALARS.length)];
  if (r < 0.75) return Array.from({ length: Math.floor(rand() * 3) }, () => value(rand, depth + 1));
  return body(rand, depth + 1);
}

function body(rand: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i--) out[KEYS[Math.floor(rand() * KEYS.length)]!] = value(rand, depth);
  return out;
}

describe('no 500 for any generated input', () => {
  const targets = () => [
    { method: 'POST', path: '/api/v1/customers', token: shop.merchant.api_key },
    { method: 'PATCH', path: '/api/v1/customers/cus_x', token: shop.merchant.api_key },
    { method: 'POST', path: '/api/v1/checkouts', token: shop.merchant.api_key },
    { method: 'POST', path: '/api/v1/kyc/upsert', token: shop.merchant.api_key },
    { method: 'POST', path: '/api/v1/device_pings', token: shop.merchant.client_secret },
    { method: 'POST', path: '/api/v1/charges/ch_x/refund', token: shop.merchant.api_key },
    { method: 'POST', path: `/wallet/v1/checkouts/${checkout.id}/attempts`, headers: { 'x-client-secret': checkout.client_secret } },
    { method: 'POST', path: '/admin/v1/merchants', token: service.adminToken },
    { method: 'PATCH', path: `/admin/v1/merchants/${shop.merchant.id}/settings`, token: service.adminToken },
    { method: 'POST', path: '/admin/v1/sandbox/charges/ch_x/transition', token: service.adminToken },
  ];

  it('JSON bodies', async () => {
    const rand = prng(42);
    for (const target of targets()) {
      for (let i = 0; i < 40; i++) {
        const res = await request(service.baseUrl, target.method, target.path, { token: target.token, headers: target.headers, body: body(rand) });
        if (res.status >= 500) throw new Error(`${target.method} ${target.path} answered ${res.status}: ${res.text}`);
        expect(typeof res.body?.error === 'string' || res.status < 300).toBe(true);
      }
    }
  });

  it('text with NUL characters, which PostgreSQL cannot store', async () => {
    const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: { email: 'nul@example.com', first_name: 'A\u0000', last_name: 'B' } });
    expect(res.status).toBe(422);
  });

  it('raw bodies that are not JSON objects', async () => {
    const raws = ['', 'null', '[]', '"x"', '1', '{', '{"a":', '\u0000', '{"a":1}{"b":2}', 'x'.repeat(200_000)];
    for (const target of targets()) {
      for (const rawBody of raws) {
        const res = await request(service.baseUrl, target.method, target.path, { token: target.token, headers: target.headers, rawBody });
        if (res.status >= 500) throw new Error(`${target.method} ${target.path} with ${JSON.stringify(rawBody.slice(0, 20))} answered ${res.status}: ${res.text}`);
        expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
      }
    }
  });

  it('query strings and paths', async () => {
    const gets = [
      '/api/v1/customers/search?email[]=a&email[]=b', '/api/v1/customers/search?phone_number=%FF', '/api/v1/customers/search?internal_id=' + 'x'.repeat(3000),
      '/api/v1/charges/%ZZ', '/api/v1/charges/' + 'x'.repeat(3000), '/api/v1/device_pings/latest_geo_check?customer_id[a]=1',
      '/admin/v1/events?limit=abc', '/admin/v1/events?limit=1e9', '/admin/v1/reviews?status=x', '/admin/v1/merchants/%00',
      `/wallet/v1/checkouts/%E0%A4%A`, '/checkout/%ZZ?client_secret=x',
    ];
    for (const path of gets) {
      const token = path.startsWith('/admin') ? service.adminToken : shop.merchant.api_key;
      const res = await request(service.baseUrl, 'GET', path, { token });
      if (res.status >= 500) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
    }
  });
});
