import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';

let service: Service;
let merchant: MerchantCredentials;
beforeAll(async () => {
  service = await startService({ worker: false });
  merchant = await onboard(service);
});
afterAll(async () => service.stop());

const search = (headers: Record<string, string>) =>
  request(service.baseUrl, 'GET', '/api/v1/customers/search?email=nobody@example.com', { headers });

describe('Authentication (contract section Authentication)', () => {
  it('accepts an API key sent as Authorization: Bearer', async () => {
    const res = await search({ authorization: `Bearer ${merchant.api_key}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: [] });
  });

  it.each([
    ['POST', '/api/v1/customers', 'api_key', 'API key not found.'],
    ['POST', '/api/v1/checkouts', 'api_key', 'API key not found.'],
    ['POST', '/api/v1/kyc/upsert', 'api_key', 'API key not found.'],
    ['POST', '/api/v1/device_pings', 'client_secret', 'Client secret not found.'],
  ] as const)('checks the credential before the body: %s %s that is not JSON is 422 without one, 400 with one', async (method, path, kind, message) => {
    const withoutCredential: Array<Record<string, string>> = [{}, { authorization: 'Bearer key_doesnotexist0000000000000000000000000' }];
    for (const headers of withoutCredential) {
      const res = await request(service.baseUrl, method, path, { rawBody: '{bad', headers });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe(message);
    }
    const res = await request(service.baseUrl, method, path, { rawBody: '{bad', token: merchant[kind] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Request body is not valid JSON.', hint: expect.any(String) });
  });

  it('checks the credential before the body\'s size: a body over 100 kB is 422 without an API key (401 without the admin token), 413 with one', async () => {
    const big = JSON.stringify({ customer_id: 'x'.repeat(150_000), type: 'deposit' });
    const without = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { rawBody: big });
    expect([without.status, without.body?.error]).toEqual([422, 'API key not found.']);
    const unknown = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { rawBody: big, token: 'key_doesnotexist0000000000000000000000000' });
    expect([unknown.status, unknown.body?.error]).toEqual([422, 'API key not found.']);
    expect((await request(service.baseUrl, 'POST', '/admin/v1/merchants', { rawBody: big })).status).toBe(401);
    const withKey = await request(service.baseUrl, 'POST', '/api/v1/checkouts', { rawBody: big, token: merchant.api_key });
    expect([withKey.status, withKey.body?.error]).toEqual([413, 'Request body is too large.']);
  });

  it.each([
    ['no Authorization header', {}],
    ['a bare credential without Bearer', { authorization: 'KEY' }],
    ['another scheme', { authorization: 'Basic KEY' }],
    ['an unknown key', { authorization: 'Bearer key_doesnotexist0000000000000000000000000' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['the client secret', { authorization: 'Bearer SECRET' }],
    ['the webhook signing secret', { authorization: 'Bearer WSS' }],
  ])('answers 422 {error: "API key not found."} for %s, never 401', async (_label, raw) => {
    const headers = Object.fromEntries(
      Object.entries(raw as Record<string, string>).map(([k, v]) => [
        k,
        v.replace('KEY', merchant.api_key).replace('SECRET', merchant.client_secret).replace('WSS', merchant.webhook_signing_secret),
      ]),
    );
    const res = await search(headers);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('API key not found.');
  });

  it('scopes every read and write to the key\'s merchant', async () => {
    const other = await onboard(service, { name: 'Other merchant' });
    const fields = uniqueCustomer();
    const created = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: fields });
    expect(created.status).toBe(201);

    const foreignSearch = await request(service.baseUrl, 'GET', `/api/v1/customers/search?email=${encodeURIComponent(fields.email)}`, {
      token: other.api_key,
    });
    expect(foreignSearch.body).toEqual({ results: [] });

    const foreignUpdate = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${created.body.id}`, {
      token: other.api_key,
      body: { first_name: 'Mallory' },
    });
    const missingUpdate = await request(service.baseUrl, 'PATCH', '/api/v1/customers/cus_doesnotexist', {
      token: other.api_key,
      body: { first_name: 'Mallory' },
    });
    expect(foreignUpdate.status).toBe(422);
    // Indistinguishable from a customer that does not exist at all (ids aside).
    expect(foreignUpdate.body.error).toBe(missingUpdate.body.error);

    // The other business may reuse the same email: uniqueness is per business.
    const sameEmailElsewhere = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: other.api_key, body: fields });
    expect(sameEmailElsewhere.status).toBe(201);
  });

  it('keeps old keys working after a new key is issued, until revoked', async () => {
    const m = await onboard(service);
    const issued = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${m.id}/api_keys`, { token: service.adminToken });
    expect(issued.status).toBe(201);
    expect(issued.body.api_key).toMatch(/^key_/);
    expect(issued.body.client_secret).toMatch(/^secret_/);

    expect((await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: m.api_key })).status).toBe(200);
    expect((await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: issued.body.api_key })).status).toBe(200);

    const oldPrefix = m.api_key.slice(0, 12);
    const revoked = await request(service.baseUrl, 'DELETE', `/admin/v1/merchants/${m.id}/api_keys/${oldPrefix}`, { token: service.adminToken });
    expect(revoked.status).toBe(200);
    const afterRevoke = await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: m.api_key });
    expect(afterRevoke.status).toBe(422);
    expect(afterRevoke.body.error).toBe('API key not found.');
    expect((await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: issued.body.api_key })).status).toBe(200);

    const again = await request(service.baseUrl, 'DELETE', `/admin/v1/merchants/${m.id}/api_keys/${oldPrefix}`, { token: service.adminToken });
    expect(again.status).toBe(404);
  });

  it('stores only hashes of API keys and client secrets', async () => {
    const m = await onboard(service);
    const rows = await service.deps.db('api_keys').where({ merchant_id: m.id });
    const dump = JSON.stringify(rows) + JSON.stringify(await service.deps.db('merchants').where({ id: m.id }));
    expect(dump).not.toContain(m.api_key.slice(4));
    expect(dump).not.toContain(m.client_secret.slice(7));
    expect(dump).not.toContain(m.webhook_signing_secret.slice(4));
  });
});
