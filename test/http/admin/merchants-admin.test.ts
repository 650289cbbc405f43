import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false });
});
afterAll(async () => service.stop());

const admin = (method: string, path: string, body?: unknown, token = service.adminToken) =>
  request(service.baseUrl, method, `/admin/v1${path}`, { token, body });

describe('Admin API: merchants', () => {
  it('answers 401 {error} without the admin token or with a wrong one', async () => {
    for (const token of [undefined, 'wrong-token-0000000000', 'key_abc']) {
      const res = await request(service.baseUrl, 'POST', '/admin/v1/merchants', { token, body: { name: 'x' } });
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual(expect.any(String));
    }
  });

  it('onboards a sandbox merchant with default settings and shows secrets once', async () => {
    const res = await admin('POST', '/merchants', { name: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Acme', environment: 'sandbox' });
    expect(res.body.id).toMatch(/^mer_/);
    expect(res.body.api_key).toMatch(/^key_/);
    expect(res.body.client_secret).toMatch(/^secret_/);
    expect(res.body.webhook_signing_secret).toMatch(/^wss_/);
    expect(res.body.settings).toEqual({
      webhook_url: null,
      enabled_events: [],
      customer_fields: 'names_and_email',
      checkout_flows: ['deposit', 'preset_deposit', 'purchase', 'subscription', 'balance_withdrawal', 'preset_withdrawal'],
      payment_methods: {
        deposit: ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'],
        withdrawal: ['credit_card', 'bank_account'],
      },
      card_processor: 'sandbox_alpha',
      kyc_enabled: true,
      kyc_required_for: [],
      device_pings_enabled: true,
      geo_required_for: [],
      supported_regions: expect.arrayContaining(['NY', 'CA', 'DC']),
      review: { enabled: false, min_amount_cents: 1 },
      checkout_expiry_seconds: 1800,
      sandbox_settlement_seconds: 5,
      sandbox_hold_seconds: 0,
      max_attempts_per_checkout: null,
      // Off by default in sandbox, whose test cards everyone shares.
      velocity_limits: { enabled: false, card_attempts_per_hour: 10, ip_attempts_per_hour: 30, customer_attempts_per_hour: null },
      subscription_retry_days: [1, 3, 5],
      withdrawal_destinations: 'any',
    });
    expect(res.body.settings.supported_regions).toHaveLength(51);

    const shown = await admin('GET', `/merchants/${res.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ id: res.body.id, name: 'Acme', environment: 'sandbox', settings: res.body.settings, previous_webhook_secret_expires_at: null, created_at: expect.any(String) });
  });

  it('onboards a production merchant with settings given at creation', async () => {
    const m = await onboard(service, { environment: 'production', settings: { kyc_required_for: ['deposit'] } });
    expect(m.environment).toBe('production');
    expect(m.settings.kyc_required_for).toEqual(['deposit']);
  });

  it.each([
    [{}],
    [{ name: '' }],
    [{ name: 'x', environment: 'staging' }],
    [{ name: 'x', plan: 'gold' }],
    [{ name: 'x', settings: { checkout_expiry_seconds: 0 } }],
  ])('rejects an invalid onboarding body %j with 422 {error, hint}', async (body) => {
    const res = await admin('POST', '/merchants', body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('PATCHes any subset of the settings and answers the full settings', async () => {
    const m = await onboard(service);
    const res = await admin('PATCH', `/merchants/${m.id}/settings`, {
      webhook_url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['checkout.failed', 'checkout.expired'],
      review: { enabled: true, min_amount_cents: 5000 },
      checkout_expiry_seconds: 60,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      webhook_url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['checkout.failed', 'checkout.expired'],
      review: { enabled: true, min_amount_cents: 5000 },
      checkout_expiry_seconds: 60,
      card_processor: 'sandbox_alpha',
    });
    const again = await admin('PATCH', `/merchants/${m.id}/settings`, { card_processor: 'sandbox_gamma' });
    expect(again.body).toMatchObject({ card_processor: 'sandbox_gamma', checkout_expiry_seconds: 60 });
    expect((await admin('GET', `/merchants/${m.id}`)).body.settings).toEqual(again.body);
  });

  // Audit regression: the merge read the settings unlocked, so of two patches at once the later
  // write put back what the earlier one had changed.
  it('keeps both of two PATCHes of different settings sent at once', async () => {
    const m = await onboard(service);
    for (let round = 1; round <= 12; round += 1) {
      const [a, b] = await Promise.all([
        admin('PATCH', `/merchants/${m.id}/settings`, { checkout_expiry_seconds: 100 + round }),
        admin('PATCH', `/merchants/${m.id}/settings`, { sandbox_hold_seconds: round }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const settings = (await admin('GET', `/merchants/${m.id}`)).body.settings;
      expect({ round, expiry: settings.checkout_expiry_seconds, hold: settings.sandbox_hold_seconds }).toEqual({ round, expiry: 100 + round, hold: round });
    }
  });

  it('PATCHes some fields of an object setting and keeps the rest; takes always-on events and a null attempt limit', async () => {
    const m = await onboard(service);
    const patch = (body: unknown) => admin('PATCH', `/merchants/${m.id}/settings`, body);
    expect((await patch({ review: { enabled: true, min_amount_cents: 700 } })).body.review).toEqual({ enabled: true, min_amount_cents: 700 });
    expect((await patch({ review: { enabled: false } })).body.review).toEqual({ enabled: false, min_amount_cents: 700 });
    const methods = (await patch({ payment_methods: { withdrawal: ['bank_account'] } })).body.payment_methods;
    expect(methods).toEqual({ deposit: ['credit_card', 'bank_account', 'apple_pay', 'google_pay', 'paypal', 'venmo', 'crypto'], withdrawal: ['bank_account'] });
    expect((await patch({ velocity_limits: { card_attempts_per_hour: 3 } })).body.velocity_limits).toEqual({ enabled: false, card_attempts_per_hour: 3, ip_attempts_per_hour: 30, customer_attempts_per_hour: null });
    const events = await patch({ enabled_events: ['checkout.succeeded', 'checkout.failed'] });
    expect(events.status).toBe(200);
    expect(events.body.enabled_events).toEqual(['checkout.succeeded', 'checkout.failed']);
    expect((await patch({ max_attempts_per_checkout: 5 })).body.max_attempts_per_checkout).toBe(5);
    expect((await patch({ max_attempts_per_checkout: null })).body.max_attempts_per_checkout).toBeNull();
    expect((await admin('GET', `/merchants/${m.id}`)).body.settings).toMatchObject({ review: { enabled: false, min_amount_cents: 700 }, max_attempts_per_checkout: null });
  });

  it.each([
    [{}],
    [{ enabled_events: ['checkout.nope'] }],
    [{ customer_fields: 'phone_only' }],
    [{ checkout_flows: ['purchase', 'purchase'] }],
    [{ payment_methods: { deposit: ['cash'], withdrawal: [] } }],
    [{ card_processor: 'stripe' }],
    [{ kyc_required_for: ['purchase'] }],
    [{ supported_regions: ['ZZ'] }],
    [{ review: { enabled: 'yes' } }],
    [{ review: { min_amount_cents: 0 } }],
    [{ payment_methods: { deposit: ['cash'] } }],
    [{ max_attempts_per_checkout: 0 }],
    [{ checkout_expiry_seconds: 86401 }],
    [{ sandbox_settlement_seconds: -1 }],
    [{ sandbox_hold_seconds: 3601 }],
    [{ subscription_retry_days: [3, 1] }],
    [{ subscription_retry_days: [0] }],
    [{ webhook_url: 'not a url' }],
    [{ surprise: true }],
  ])('rejects the settings patch %j with 422', async (body) => {
    const m = await onboard(service);
    const res = await admin('PATCH', `/merchants/${m.id}/settings`, body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('refuses unknown body fields on the actions that take no body, and does nothing', async () => {
    const merchant = (await admin('POST', '/merchants', { name: 'Bodies' })).body;
    const keys = async () => (await admin('GET', `/merchants/${merchant.id}/api_keys`)).body.results.map((k: { key_prefix: string }) => k.key_prefix);
    const before = await keys();
    const refused = [
      await admin('POST', `/merchants/${merchant.id}/api_keys`, { foo: 1 }),
      await admin('DELETE', `/merchants/${merchant.id}/api_keys/${before[0]}`, { foo: 1 }),
      await admin('POST', '/customers/cus_unknown/unrestrict', { foo: 1 }),
      await admin('POST', '/events/ev_unknown/resend', { foo: 1 }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: 'Request body is invalid: unknown field(s): foo.', hint: 'unknown field(s): foo' });
    }
    expect(await keys()).toEqual(before);
    // No body, or an empty one, is the action itself.
    expect((await admin('POST', `/merchants/${merchant.id}/api_keys`)).status).toBe(201);
    expect((await admin('POST', `/merchants/${merchant.id}/api_keys`, {})).status).toBe(201);
    expect(await keys()).toHaveLength(before.length + 2);
    expect((await admin('POST', '/events/ev_unknown/resend')).status).toBe(404);
  });

  // Audit regression: the list answered each merchant's stored settings as they were, so a
  // merchant onboarded before a setting existed showed it missing there while its own GET showed
  // the default.
  it('lists merchants with the same full settings as their own GET, defaults of later settings included', async () => {
    const m = await onboard(service);
    await service.deps.db.raw(`UPDATE merchants SET settings = settings - 'withdrawal_destinations' - 'max_attempts_per_checkout' WHERE id = ?`, [m.id]);
    const one = await admin('GET', `/merchants/${m.id}`);
    expect(one.body.settings).toMatchObject({ withdrawal_destinations: 'any', max_attempts_per_checkout: null });
    const list = await admin('GET', '/merchants?limit=200');
    expect(list.status).toBe(200);
    expect(list.body.results.find((r: { id: string }) => r.id === m.id)).toEqual(one.body);
  });

  // Audit regression: the onboarding answer named no key prefix, the only handle
  // DELETE .../api_keys/{key_prefix} takes, so the first key could not be revoked from it.
  it('names the first key by its key_prefix at onboarding, which revokes it', async () => {
    const created = await admin('POST', '/merchants', { name: 'Prefix' });
    expect(created.status).toBe(201);
    expect(created.body.key_prefix).toBe(created.body.api_key.slice(0, 12));
    const listed = (await admin('GET', `/merchants/${created.body.id}/api_keys`)).body.results;
    expect(listed.map((k: { key_prefix: string }) => k.key_prefix)).toEqual([created.body.key_prefix]);
    expect((await admin('DELETE', `/merchants/${created.body.id}/api_keys/${created.body.key_prefix}`)).status).toBe(200);
    const refused = await request(service.baseUrl, 'GET', '/api/v1/customers/search?email=a@b.co', { token: created.body.api_key });
    expect(refused.status).toBe(422);
  });

  it('answers 404 for an unknown merchant', async () => {
    expect((await admin('GET', '/merchants/mer_nope')).status).toBe(404);
    expect((await admin('PATCH', '/merchants/mer_nope/settings', { kyc_enabled: false })).status).toBe(404);
    expect((await admin('POST', '/merchants/mer_nope/api_keys')).status).toBe(404);
  });
});

describe('Webhook URL policy', () => {
  it('refuses private addresses in production mode unless allowed', async () => {
    const prod = await startService({ worker: false, env: { NODE_ENV: 'production', DATA_ENCRYPTION_KEY: 'x'.repeat(32) } });
    try {
      const m = await onboard(prod);
      for (const url of ['http://127.0.0.1/h', 'http://10.1.2.3/h', 'http://192.168.0.10/h', 'http://169.254.169.254/latest', 'http://[::1]/h', 'http://localhost/h']) {
        const res = await request(prod.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, { token: prod.adminToken, body: { webhook_url: url } });
        expect(res.status).toBe(422);
      }
    } finally {
      await prod.stop();
    }
    const allowed = await startService({
      worker: false,
      env: { NODE_ENV: 'production', DATA_ENCRYPTION_KEY: 'x'.repeat(32), ALLOW_PRIVATE_WEBHOOK_URLS: 'true' },
    });
    try {
      const m = await onboard(allowed);
      const res = await request(allowed.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, {
        token: allowed.adminToken,
        body: { webhook_url: 'http://127.0.0.1:4000/h' },
      });
      expect(res.status).toBe(200);
    } finally {
      await allowed.stop();
    }
  });
});
