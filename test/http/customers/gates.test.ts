import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { attempt, CARD, createCheckout, openShop, recordedEvents, walletView, type Shop } from '../../support/fixtures';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.stop());

const NYC = { latitude: 40.7128, longitude: -74.006 };
const TORONTO = { latitude: 43.6532, longitude: -79.3832 };

const KYC = (customerId: string, over: Record<string, unknown> = {}) => ({
  customer_id: customerId, first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-01-01', address_line_1: '1 Main St',
  city: 'Albany', state: 'NY', postal_code: '12207', country: 'USA', provider: 'persona', verified: true, ...over,
});

const upsertKyc = (shop: Shop, body: Record<string, unknown>) => request(service.baseUrl, 'POST', '/api/v1/kyc/upsert', { token: shop.merchant.api_key, body });
const ping = (checkout: { id: string; client_secret: string }, at: { latitude: number; longitude: number }) =>
  request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, { body: at, headers: { 'x-client-secret': checkout.client_secret } });

describe('KYC gate', () => {
  it('blocks a KYC-required checkout for a customer without a verified record (checkout.terminally_failed), no charge', async () => {
    const shop = await openShop(service, { kyc_required_for: ['deposit'], enabled_events: ['checkout.terminally_failed'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('blocked');
    expect((await walletView(service, checkout)).body.state).toBe('blocked');
    expect(await service.deps.db('charges').where({ checkout_id: checkout.id })).toHaveLength(0);
    const [event] = await recordedEvents(service, checkout.id);
    expect(event).toMatchObject({ type: 'checkout.terminally_failed', enabled: true });
    const data = JSON.parse(event!.body).data;
    expect(data).toMatchObject({ id: checkout.id, type: 'deposit', reason: 'kyc_not_verified', subscription: null });
    expect('charge' in data).toBe(false);
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(422);
  });

  it('passes with a verified record; a newer unverified record sends the customer back through verification', async () => {
    const shop = await openShop(service, { kyc_required_for: ['deposit'] });
    expect((await upsertKyc(shop, KYC(shop.customerId))).status).toBeLessThan(300);
    const ok = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, ok, { payment_method: CARD() })).body.charge.status).toBe('succeeded');
    expect((await upsertKyc(shop, KYC(shop.customerId, { verified: false }))).status).toBeLessThan(300);
    const again = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, again, { payment_method: CARD() })).status).toBe(422);
  });

  it('production: a verified name that differs restricts the customer; updating the customer and lifting the restriction fix it', async () => {
    const shop = await openShop(service, { kyc_required_for: ['withdrawal', 'deposit'], enabled_events: ['customer.restricted', 'customer.unrestricted', 'checkout.terminally_failed'] }, 'production');
    await upsertKyc(shop, KYC(shop.customerId, { first_name: 'Augusta', last_name: 'King' }));
    const first = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, first, { payment_method: CARD('4111111111111111') })).status).toBe(422);
    const customer = await service.deps.db('customers').where({ id: shop.customerId }).first();
    expect(customer.restriction_reason).toBe('KYC_DOES_NOT_MATCH_PROFILE_NAME');
    const restricted = await service.deps.db('events').where({ customer_id: shop.customerId, type: 'customer.restricted' });
    expect(restricted).toHaveLength(1);
    expect(JSON.parse(restricted[0].body).data).not.toHaveProperty('charge');

    // The fix: update the customer to the verified name; the restriction stays until lifted.
    const patched = await request(service.baseUrl, 'PATCH', `/api/v1/customers/${shop.customerId}`, { token: shop.merchant.api_key, body: { first_name: 'Augusta', last_name: 'King' } });
    expect(patched.status).toBe(200);
    const second = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, second, { payment_method: CARD('4111111111111111') })).status).toBe(422);
    expect((await service.deps.db('checkouts').where({ id: second.id }).first()).blocked_reason).toBe('customer_restricted');

    const lifted = await request(service.baseUrl, 'POST', `/admin/v1/customers/${shop.customerId}/unrestrict`, { token: service.adminToken });
    expect(lifted.status).toBe(200);
    expect(await service.deps.db('events').where({ customer_id: shop.customerId, type: 'customer.unrestricted' })).toHaveLength(1);
    const third = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, third, { payment_method: CARD('4111111111111111') })).body.charge.status).toBe('succeeded');
  });

  it('sandbox merchants skip the name match', async () => {
    const shop = await openShop(service, { kyc_required_for: ['deposit'] });
    await upsertKyc(shop, KYC(shop.customerId, { first_name: 'Augusta', last_name: 'King' }));
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).body.charge.status).toBe('succeeded');
  });
});

describe('geo gate', () => {
  it('blocks without a geo check, and passes after the wallet pings from a supported state', async () => {
    const shop = await openShop(service, { geo_required_for: ['deposit'] });
    const blocked = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await attempt(service, blocked, { payment_method: CARD() })).status).toBe(422);
    expect((await service.deps.db('checkouts').where({ id: blocked.id }).first()).blocked_reason).toBe('geo_check_missing');

    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 1000 });
    const p = await ping(checkout, NYC);
    expect(p.body.geo_check).toMatchObject({ passed: true, region: 'NY', country: 'USA' });
    expect((await attempt(service, checkout, { payment_method: CARD() })).body.charge.status).toBe('succeeded');
  });

  it('blocks outside the supported regions and outside the US, and when the check is over 30 minutes old', async () => {
    const shop = await openShop(service, { geo_required_for: ['withdrawal'], supported_regions: ['CA'] });
    const outside = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 1000 });
    expect((await ping(outside, NYC)).body.geo_check.passed).toBe(false);
    expect((await attempt(service, outside, { payment_method: CARD() })).status).toBe(422);
    expect((await service.deps.db('checkouts').where({ id: outside.id }).first()).blocked_reason).toBe('geo_check_failed');

    const abroad = await openShop(service, { geo_required_for: ['deposit'] });
    const canada = await createCheckout(service, abroad, { type: 'deposit', fixed_amount_cents: 1000 });
    expect((await ping(canada, TORONTO)).body.geo_check).toMatchObject({ passed: false, country: 'CAN' });
    expect((await attempt(service, canada, { payment_method: CARD() })).status).toBe(422);

    const stale = await openShop(service, { geo_required_for: ['deposit'] });
    const old = await createCheckout(service, stale, { type: 'deposit', fixed_amount_cents: 1000 });
    await ping(old, NYC);
    await service.deps.db('geo_checks').where({ customer_id: stale.customerId }).update({ checked_at: new Date(Date.now() - 31 * 60_000) });
    expect((await attempt(service, old, { payment_method: CARD() })).status).toBe(422);
    expect((await service.deps.db('checkouts').where({ id: old.id }).first()).blocked_reason).toBe('geo_check_stale');
  });
});
