import { CREDENTIAL_TTL_MS, CredentialCache, credentialCacheFor, type Authenticated } from '../../../src/http/credential-cache';
import type { MerchantRow } from '../../../src/storage/merchants';
import { startService, type Service } from '../../support/harness';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';
import { waitFor } from '../../support/fixtures';

/**
 * Authentication caches a credential's merchant for a few seconds; a revocation or a settings
 * change must still take effect on the very next request, on every API process. Two APIs sit
 * behind one round-robin address here, so consecutive requests reach different processes.
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 2 });
}, 120_000);
afterAll(async () => service?.stop());

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, body });
const createCustomer = (merchant: MerchantCredentials, body: Record<string, unknown>) =>
  request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body });

describe('credential cache across API processes', () => {
  it('answers repeated requests without looking the credential up again', async () => {
    const merchant = await onboard(service);
    const cache = credentialCacheFor(service.deps.db);
    await waitFor(async () => (await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@example.com', { token: merchant.api_key }), cache.active), 10_000, 'the cache listening');
    let lookups = 0;
    const count = (query: { sql: string }) => void (query.sql.includes('from "api_keys"') && lookups++);
    service.deps.db.on('query', count);
    try {
      for (let i = 0; i < 6; i++) expect((await createCustomer(merchant, uniqueCustomer())).status).toBe(201);
    } finally {
      service.deps.db.off('query', count);
    }
    // Three of the six reached this process (round robin); at most the first looked the key up.
    expect(lookups).toBeLessThanOrEqual(1);
  });

  it('refuses a revoked key on the next request to either API, though both had just accepted it', async () => {
    const merchant = await onboard(service);
    for (let i = 0; i < 4; i++) expect((await createCustomer(merchant, uniqueCustomer())).status).toBe(201);
    const prefix = (await admin('GET', `/merchants/${merchant.id}/api_keys`)).body.results[0].key_prefix;
    expect((await admin('DELETE', `/merchants/${merchant.id}/api_keys/${prefix}`)).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const res = await createCustomer(merchant, uniqueCustomer());
      expect([res.status, res.body.error]).toEqual([422, 'API key not found.']);
    }
  });

  it('applies a settings change on the next request to either API', async () => {
    const merchant = await onboard(service, { settings: { customer_fields: 'names_and_email' } });
    const emailOnly = () => ({ email: uniqueCustomer().email });
    for (let i = 0; i < 4; i++) expect((await createCustomer(merchant, emailOnly())).status).toBe(422);
    expect((await admin('PATCH', `/merchants/${merchant.id}/settings`, { customer_fields: 'email_only' })).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const res = await createCustomer(merchant, emailOnly());
      expect([i, res.status, res.body]).toEqual([i, 201, expect.anything()]);
    }
  });
});

describe('CredentialCache', () => {
  const merchant: Authenticated = { merchant: { id: 'mer_cache' } as MerchantRow };
  const hash = Buffer.from('a hash');
  const waitListening = async (cache: CredentialCache) => {
    // The listener connects on first use; until then nothing is cached.
    await cache.get(Buffer.from('warm-up'), async () => undefined);
    for (let i = 0; i < 100 && !cache.active; i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('answers from memory within the TTL and asks the database again after it', async () => {
    let now = 1_000;
    const cache = new CredentialCache(service.databaseUrl, () => now);
    try {
      await waitListening(cache);
      let loads = 0;
      const load = async () => (loads++, merchant);
      await cache.get(hash, load);
      await cache.get(hash, load);
      expect(loads).toBe(1);
      now += CREDENTIAL_TTL_MS + 1;
      await cache.get(hash, load);
      expect(loads).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it('does not cache a lookup that raced an invalidation of any merchant', async () => {
    const cache = new CredentialCache(service.databaseUrl);
    try {
      await waitListening(cache);
      let loads = 0;
      await cache.get(hash, async () => {
        loads++;
        cache.invalidate('mer_other');
        return merchant;
      });
      await cache.get(hash, async () => (loads++, merchant));
      expect(loads).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it('caches nothing while it cannot listen for changes', async () => {
    const cache = new CredentialCache('postgres://postgres@127.0.0.1:1/nowhere');
    try {
      let loads = 0;
      for (let i = 0; i < 3; i++) await cache.get(hash, async () => (loads++, merchant));
      expect(loads).toBe(3);
    } finally {
      await cache.close();
    }
  });
});
