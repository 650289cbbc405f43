import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type JsonResponse } from '../../support/http';
import { operator } from '../../support/operators';

/**
 * Audit regression: API answers carried no Cache-Control, so a browser could keep them; the
 * dashboard reads the admin API with its cookie and every read came with an ETag, which makes
 * browsers store it on disk to revalidate later (customers' names, emails, KYC evidence, card
 * last fours). Answers also went out without nosniff. Every API answer, refusals included, is
 * now `no-store` and `nosniff`; the page assets stay cacheable.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

const expectNotStored = (name: string, res: JsonResponse | Response) => {
  expect([name, res.headers.get('cache-control'), res.headers.get('x-content-type-options')]).toEqual([name, 'no-store', 'nosniff']);
};

describe('API answers are never stored and never sniffed', () => {
  it('admin answers carrying secrets or personal data, read with the bearer token or the dashboard cookie', async () => {
    const created = await request(service.baseUrl, 'POST', '/admin/v1/merchants', { token: service.adminToken, body: { name: 'Headers' } });
    expect(created.status).toBe(201);
    expectNotStored('POST /admin/v1/merchants', created);

    const { cookie } = await operator(service, 'operator_viewer');
    const list = await request(service.baseUrl, 'GET', '/admin/v1/merchants', { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).not.toBeNull();
    expectNotStored('GET /admin/v1/merchants (cookie)', list);
    expectNotStored('GET /admin/v1/customers/restricted', await request(service.baseUrl, 'GET', '/admin/v1/customers/restricted', { headers: { cookie } }));
    expectNotStored('GET /admin/v1/merchants (no credential, 401)', await request(service.baseUrl, 'GET', '/admin/v1/merchants'));
  });

  it('a created checkout (client_secret and url) and the wallet API, refusals included', async () => {
    const merchant = await onboard(service);
    const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer() });
    expectNotStored('POST /api/v1/customers', customer);
    const checkout = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: merchant.api_key, body: { customer_id: customer.body.id, type: 'deposit', fixed_amount_cents: 500 } });
    expect(checkout.status).toBe(201);
    expect(checkout.body.client_secret).toEqual(expect.any(String));
    expectNotStored('POST /api/v1/checkouts', checkout);
    expectNotStored('GET /api/v1/checkouts/{id}', await request(service.baseUrl, 'GET', `/api/v1/checkouts/${checkout.body.id}`, { token: merchant.api_key }));
    expectNotStored('POST /api/v1/checkouts (bad key, 422)', await request(service.baseUrl, 'POST', '/api/v1/checkouts', { token: 'key_wrong', body: {} }));

    const secret = { 'x-client-secret': checkout.body.client_secret };
    expectNotStored('GET /wallet/v1/checkouts/{id}', await request(service.baseUrl, 'GET', `/wallet/v1/checkouts/${checkout.body.id}`, { headers: secret }));
    expectNotStored('GET /wallet/v1/checkouts/{id} (wrong secret, 422)', await request(service.baseUrl, 'GET', `/wallet/v1/checkouts/${checkout.body.id}`, { headers: { 'x-client-secret': 'cs_wrong' } }));
    expectNotStored('POST /wallet/v1/checkouts/{id}/attempts (no body, 422)', await request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.body.id}/attempts`, { headers: secret }));
  });

  it('any other answer is nosniff too (a 404 that echoes the path); the wallet\'s assets stay cacheable', async () => {
    const missing = await request(service.baseUrl, 'GET', '/%3Cscript%3Ealert(1)%3C/script%3E');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    const asset = await fetch(`${service.baseUrl}/wallet-assets/wallet.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=\d+/);
  });
});
