import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

const admin = (method: string, path: string, body?: unknown) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken, body });
const CARDS_ONLY = { deposit: ['credit_card'], withdrawal: [] };
const TEST_KEY = 'sk_test_51SettingsKeyAbcd1234';
const WEBHOOK_SECRET = 'whsec_settingsSecret0001';

async function merchant(environment: 'sandbox' | 'production' = 'sandbox') {
  const res = await admin('POST', '/merchants', { name: 'Stripe shop', environment });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('Settings: card_processor "stripe" with the merchant\'s Stripe credentials', () => {
  it('takes the key and webhook secret, seals them, and shows only the last four and whether set', async () => {
    const id = await merchant();
    const res = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe: { secret_key: TEST_KEY, webhook_secret: WEBHOOK_SECRET } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ card_processor: 'stripe', stripe: { secret_key_last4: '1234', webhook_secret_set: true } });
    const shown = await admin('GET', `/merchants/${id}`);
    expect(shown.body.settings.stripe).toEqual({ secret_key_last4: '1234', webhook_secret_set: true });
    expect(JSON.stringify(shown.body)).not.toContain(TEST_KEY);
    expect(JSON.stringify(shown.body)).not.toContain(WEBHOOK_SECRET);
    const row = await service.deps.db('merchants').where({ id }).first();
    expect(row.stripe_secret_key_sealed).not.toContain(TEST_KEY);
    expect(service.deps.sealer.open(row.stripe_secret_key_sealed)).toBe(TEST_KEY);
    expect(service.deps.sealer.open(row.stripe_webhook_secret_sealed)).toBe(WEBHOOK_SECRET);
  });

  it('replaces the key alone, keeping the webhook secret', async () => {
    const id = await merchant();
    await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe: { secret_key: TEST_KEY, webhook_secret: WEBHOOK_SECRET } });
    const res = await admin('PATCH', `/merchants/${id}/settings`, { stripe: { secret_key: 'sk_test_51ReplacedKey9876' } });
    expect(res.body.stripe).toEqual({ secret_key_last4: '9876', webhook_secret_set: true });
  });

  it('onboards a merchant on Stripe in one request', async () => {
    const res = await admin('POST', '/merchants', { name: 'On Stripe', settings: { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe: { secret_key: TEST_KEY } } });
    expect(res.status).toBe(201);
    expect(res.body.settings).toMatchObject({ card_processor: 'stripe', stripe: { secret_key_last4: '1234', webhook_secret_set: false } });
  });

  it.each([
    ['a live key for a sandbox merchant', 'sandbox', { secret_key: 'sk_live_51LiveKey0000' }, /test-mode/],
    ['a test key for a production merchant', 'production', { secret_key: TEST_KEY }, /live/],
  ] as const)('refuses %s with 422 and a hint', async (_name, environment, stripe, message) => {
    const id = await merchant(environment);
    const res = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
    expect(res.body.hint).toEqual(expect.any(String));
  });

  it('refuses stripe without a secret key, and a malformed key', async () => {
    const id = await merchant();
    const none = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY });
    expect(none.status).toBe(422);
    expect(none.body.hint).toMatch(/secret_key/);
    const malformed = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe: { secret_key: 'pk_test_123456' } });
    expect(malformed.status).toBe(422);
  });

  it('refuses stripe while card withdrawals are on, and turning them on for a Stripe merchant', async () => {
    const id = await merchant();
    const selecting = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: { deposit: ['credit_card'], withdrawal: ['credit_card'] }, stripe: { secret_key: TEST_KEY } });
    expect(selecting.status).toBe(422);
    expect(selecting.body.hint).toMatch(/Stripe Connect/);
    await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: CARDS_ONLY, stripe: { secret_key: TEST_KEY } });
    const enabling = await admin('PATCH', `/merchants/${id}/settings`, { payment_methods: { withdrawal: ['credit_card'] } });
    expect(enabling.status).toBe(422);
    expect(enabling.body.hint).toMatch(/Stripe Connect/);
  });

  it.each(['bank_account', 'crypto', 'apple_pay'])('refuses %s deposits on Stripe, which the connector does not take', async (method) => {
    const id = await merchant();
    const res = await admin('PATCH', `/merchants/${id}/settings`, { card_processor: 'stripe', payment_methods: { deposit: ['credit_card', method], withdrawal: [] }, stripe: { secret_key: TEST_KEY } });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain(method);
    expect(res.body.hint).toMatch(/credit_card/);
  });
});
