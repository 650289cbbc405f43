import { GEO_CHECK_MAX_AGE_MS, isFreshGeoCheck, latestGeoCheck } from '../../../src/storage/geo-checks';
import { startService, type Service } from '../../support/harness';
import { createCheckout, openShop, type Shop } from '../../support/fixtures';
import { onboard, request, uniqueCustomer, type MerchantCredentials } from '../../support/http';

let service: Service;
let merchant: MerchantCredentials;

const NYC = { latitude: 40.7128, longitude: -74.006 };
const LOS_ANGELES = { latitude: 34.0522, longitude: -118.2437 };
const TORONTO = { latitude: 43.6532, longitude: -79.3832 };
const MID_ATLANTIC = { latitude: 0, longitude: -30 };

const ping = (body: unknown, token = merchant.client_secret, headers: Record<string, string> = {}) =>
  request(service.baseUrl, 'POST', '/api/v1/device_pings', { token, body, headers });
const latest = (customerId: string | null, token = merchant.api_key) =>
  request(service.baseUrl, 'GET', `/api/v1/device_pings/latest_geo_check${customerId === null ? '' : `?customer_id=${encodeURIComponent(customerId)}`}`, { token });

async function newCustomer(m: MerchantCredentials = merchant): Promise<string> {
  const res = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: m.api_key, body: uniqueCustomer() });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Moves every geo check of the customer into the past, as if time had passed. */
async function ageGeoChecks(customerId: string, ms: number): Promise<void> {
  await service.deps.db('geo_checks').where({ customer_id: customerId }).update({ checked_at: service.deps.db.raw(`checked_at - (? * interval '1 millisecond')`, [ms]) });
}

beforeAll(async () => {
  service = await startService({ worker: false });
  merchant = await onboard(service);
});
afterAll(async () => service.stop());

describe('POST /api/v1/device_pings', () => {
  it('evaluates a first ping (201): a passed geo check in New York, ip_check null', async () => {
    const customerId = await newCustomer();
    const res = await ping({ ...NYC, customer_id: customerId });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['geo_check', 'id', 'ip_check']);
    expect(res.body.id).toMatch(/^dp_[A-Za-z0-9]{24}$/);
    expect(res.body.ip_check).toBeNull();
    const check = res.body.geo_check;
    expect(Object.keys(check).sort()).toEqual(['cached', 'checked_at', 'country', 'id', 'latitude', 'longitude', 'municipality', 'passed', 'region'].sort());
    expect(check).toMatchObject({ passed: true, country: 'USA', region: 'NY', municipality: 'New York City', ...NYC, cached: false });
    expect(check.id).toMatch(/^gc_[A-Za-z0-9]{24}$/);
    expect(new Date(check.checked_at).toISOString()).toBe(check.checked_at);
    const row = await service.deps.db('device_pings').where({ id: res.body.id }).first();
    expect(row).toMatchObject({ customer_id: customerId, geo_check_id: check.id, geo_check_cached: false, ...NYC });
    expect(row.ip_address).toMatch(/127\.0\.0\.1/);
  });

  it('fails a point outside the account\'s supported states, and one outside the US', async () => {
    const californiaOnly = await onboard(service, { settings: { supported_regions: ['CA'] } });
    const nyc = await ping({ ...NYC, customer_id: await newCustomer(californiaOnly) }, californiaOnly.client_secret);
    expect(nyc.body.geo_check).toMatchObject({ passed: false, country: 'USA', region: 'NY' });
    const la = await ping({ ...LOS_ANGELES, customer_id: await newCustomer(californiaOnly) }, californiaOnly.client_secret);
    expect(la.body.geo_check).toMatchObject({ passed: true, country: 'USA', region: 'CA', municipality: 'Los Angeles' });
    const toronto = await ping({ ...TORONTO, customer_id: await newCustomer() });
    expect(toronto.status).toBe(201);
    expect(toronto.body.geo_check).toMatchObject({ passed: false, country: 'CAN', municipality: 'Toronto', cached: false });
  });

  it('answers geo_check null when no check can be run (open sea), and evaluates the next ping', async () => {
    const customerId = await newCustomer();
    const sea = await ping({ ...MID_ATLANTIC, customer_id: customerId });
    expect(sea.status).toBe(201);
    expect(sea.body).toEqual({ id: expect.stringMatching(/^dp_/), geo_check: null, ip_check: null });
    expect((await service.deps.db('device_pings').where({ id: sea.body.id }).first()).geo_check_id).toBeNull();
    const land = await ping({ ...NYC, customer_id: customerId });
    expect(land.body.geo_check).toMatchObject({ region: 'NY', cached: false });
  });

  it('reuses a check under 30 minutes old (cached: true, new coordinates not evaluated), then evaluates again', async () => {
    const customerId = await newCustomer();
    const first = (await ping({ ...NYC, customer_id: customerId })).body.geo_check;
    const second = await ping({ ...LOS_ANGELES, customer_id: customerId });
    expect(second.status).toBe(201);
    expect(second.body.geo_check).toEqual({ ...first, cached: true });
    // The ping itself is still recorded, with its own coordinates, pointing at the reused check.
    expect(await service.deps.db('device_pings').where({ id: second.body.id }).first()).toMatchObject({ ...LOS_ANGELES, geo_check_id: first.id, geo_check_cached: true });

    await ageGeoChecks(customerId, 29 * 60 * 1000);
    expect((await ping({ ...LOS_ANGELES, customer_id: customerId })).body.geo_check).toMatchObject({ id: first.id, cached: true });

    await ageGeoChecks(customerId, 2 * 60 * 1000); // now 31 minutes old
    const fresh = await ping({ ...LOS_ANGELES, customer_id: customerId });
    expect(fresh.body.geo_check).toMatchObject({ region: 'CA', cached: false });
    expect(fresh.body.geo_check.id).not.toBe(first.id);
    expect(await service.deps.db('geo_checks').where({ customer_id: customerId }).count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('pings that arrive together share one evaluation: one cached: false, the rest reuse it (cached: true)', async () => {
    for (let round = 0; round < 3; round++) {
      const customerId = await newCustomer();
      const places = [NYC, LOS_ANGELES, TORONTO];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ping({ ...places[i % 3]!, customer_id: customerId })));
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
      const checks = answers.map((a) => a.body.geo_check);
      expect(checks.filter((c) => c.cached === false)).toHaveLength(1);
      expect(new Set(checks.map((c) => c.id)).size).toBe(1);
      expect(await service.deps.db('geo_checks').where({ customer_id: customerId }).count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(await service.deps.db('device_pings').where({ customer_id: customerId }).count({ n: '*' })).toEqual([{ n: 12 }]);
    }
  });

  it('exports the window and the latest check for the checkout gate', async () => {
    expect(GEO_CHECK_MAX_AGE_MS).toBe(30 * 60 * 1000);
    const customerId = await newCustomer();
    expect(await latestGeoCheck(service.deps.db, merchant.id, customerId)).toBeUndefined();
    const check = (await ping({ ...NYC, customer_id: customerId })).body.geo_check;
    const row = (await latestGeoCheck(service.deps.db, merchant.id, customerId))!;
    expect(row).toMatchObject({ id: check.id, passed: true });
    expect(isFreshGeoCheck(row)).toBe(true);
    expect(isFreshGeoCheck(row, new Date(row.checked_at.getTime() + GEO_CHECK_MAX_AGE_MS))).toBe(false);
    expect(await latestGeoCheck(service.deps.db, (await onboard(service)).id, customerId)).toBeUndefined();
  });

  it('authenticates with the client secret only (422 "Client secret not found.", never 401)', async () => {
    const body = { ...NYC, customer_id: await newCustomer() };
    for (const token of [merchant.api_key, 'secret_wrong', '']) {
      expect(await ping(body, token)).toMatchObject({ status: 422, body: { error: 'Client secret not found.' } });
    }
    const none = await request(service.baseUrl, 'POST', '/api/v1/device_pings', { body });
    expect(none).toMatchObject({ status: 422, body: { error: 'Client secret not found.' } });
    const bare = await request(service.baseUrl, 'POST', '/api/v1/device_pings', { body, headers: { authorization: merchant.client_secret } });
    expect(bare.status).toBe(422);
  });

  const valid = (customerId: string): Record<string, unknown> => ({ ...NYC, customer_id: customerId });
  const without = (field: string) => (customerId: string) => {
    const body = valid(customerId);
    delete body[field];
    return body;
  };
  const withValue = (field: string, value: unknown) => (customerId: string) => ({ ...valid(customerId), [field]: value });
  it.each([
    ['latitude missing', without('latitude')],
    ['longitude missing', without('longitude')],
    ['customer_id missing', without('customer_id')],
    ['latitude above 90', withValue('latitude', 90.5)],
    ['latitude below -90', withValue('latitude', -91)],
    ['longitude above 180', withValue('longitude', 180.01)],
    ['longitude below -180', withValue('longitude', -181)],
    ['latitude as a string', withValue('latitude', '40.7')],
    ['longitude null', withValue('longitude', null)],
    ['customer_id empty', withValue('customer_id', '')],
    ['customer_id a number', withValue('customer_id', 7)],
    ['an unknown field', withValue('accuracy', 10)],
  ])('rejects %s with 422 {error, hint}', async (_label, build) => {
    const res = await ping(build(await newCustomer()));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
  });

  it('answers 422 like a missing customer for another merchant\'s customer', async () => {
    const other = await onboard(service);
    const foreign = await ping({ ...NYC, customer_id: await newCustomer(other) });
    const missing = await ping({ ...NYC, customer_id: 'cus_nobody' });
    expect(foreign).toMatchObject({ status: 422, body: { error: 'Customer not found.' } });
    expect(missing).toMatchObject({ status: 422, body: { error: 'Customer not found.' } });
  });

  it('answers 404 {error, hint} when device pings are disabled for the account', async () => {
    const off = await onboard(service, { settings: { device_pings_enabled: false } });
    for (const body of [{ ...NYC, customer_id: await newCustomer(off) }, {}]) {
      const res = await ping(body, off.client_secret);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringMatching(/disabled/i), hint: expect.stringMatching(/contact the service operator/i) });
    }
  });

  it('is CORS-permissive, preflight included, and no other API route is', async () => {
    const preflight = await request(service.baseUrl, 'OPTIONS', '/api/v1/device_pings', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('authorization'));
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('content-type'));

    const origin = { origin: 'https://shop.example' };
    const ok = await ping({ ...NYC, customer_id: await newCustomer() }, merchant.client_secret, origin);
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    // A browser must be able to read the refusal too.
    const refused = await ping({}, 'secret_wrong', origin);
    expect(refused.status).toBe(422);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    const server = await request(service.baseUrl, 'GET', '/api/v1/device_pings/latest_geo_check?customer_id=x', { token: merchant.api_key, headers: origin });
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
    const customers = await request(service.baseUrl, 'OPTIONS', '/api/v1/customers', {
      headers: { ...origin, 'access-control-request-method': 'POST' },
    });
    expect(customers.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a browser send the headers it adds, X-Request-Id or trace context, as permissive CORS does (audit)', async () => {
    // Audit regression: the preflight allowed only Authorization, Content-Type and Idempotency-Key,
    // so a front end sending its own X-Request-Id (which the service honours) or a tracing header
    // could not ping at all, and a checkout that needs a geo check was then blocked.
    const preflight = await request(service.baseUrl, 'OPTIONS', '/api/v1/device_pings', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-request-id, traceparent' },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'content-type', 'x-request-id', 'traceparent']) expect(allowed).toContain(header);
  });
});

describe('GET /api/v1/device_pings/latest_geo_check', () => {
  it('answers the JSON literal null before any check, then the latest check (without cached)', async () => {
    const customerId = await newCustomer();
    const before = await latest(customerId);
    expect(before.status).toBe(200);
    expect(before.text).toBe('null');
    expect(before.headers.get('content-type')).toContain('application/json');

    const first = (await ping({ ...NYC, customer_id: customerId })).body.geo_check;
    const after = await latest(customerId);
    expect(after.status).toBe(200);
    const { cached: _cached, ...withoutCached } = first;
    expect(after.body).toEqual(withoutCached);

    await ageGeoChecks(customerId, 31 * 60 * 1000);
    const second = (await ping({ ...TORONTO, customer_id: customerId })).body.geo_check;
    expect((await latest(customerId)).body).toMatchObject({ id: second.id, country: 'CAN', passed: false });
  });

  it('stays null after a ping whose check could not be run', async () => {
    const customerId = await newCustomer();
    await ping({ ...MID_ATLANTIC, customer_id: customerId });
    expect((await latest(customerId)).text).toBe('null');
  });

  it('requires customer_id and answers 422 like a missing customer for another merchant\'s', async () => {
    expect(await latest(null)).toMatchObject({ status: 422, body: { error: expect.stringContaining('customer_id'), hint: expect.any(String) } });
    expect((await latest('')).status).toBe(422);
    const other = await onboard(service);
    const foreignId = await newCustomer(other);
    await ping({ ...NYC, customer_id: foreignId }, other.client_secret);
    expect(await latest(foreignId)).toMatchObject({ status: 422, body: { error: 'Customer not found.' } });
    expect(await latest('cus_nobody')).toMatchObject({ status: 422, body: { error: 'Customer not found.' } });
  });

  it('uses the API key, with its own error wording (422 "Invalid API key.", never 401)', async () => {
    const customerId = await newCustomer();
    for (const token of [merchant.client_secret, 'key_wrong']) {
      expect(await latest(customerId, token)).toEqual(expect.objectContaining({ status: 422, body: { error: 'Invalid API key.', request_id: expect.any(String) } }));
    }
    const none = await request(service.baseUrl, 'GET', `/api/v1/device_pings/latest_geo_check?customer_id=${customerId}`);
    expect(none).toMatchObject({ status: 422, body: { error: 'Invalid API key.' } });
  });
});

describe('POST /wallet/v1/checkouts/{id}/device_pings', () => {
  let shop: Shop;
  const walletPing = (checkout: { id: string; client_secret: string }, body: unknown, secret = checkout.client_secret) =>
    request(service.baseUrl, 'POST', `/wallet/v1/checkouts/${checkout.id}/device_pings`, { body, headers: { 'x-client-secret': secret } });

  beforeAll(async () => {
    shop = await openShop(service, { geo_required_for: ['deposit'] });
  });

  it('pings for the checkout\'s customer with the same answer and the same 30-minute reuse', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit' });
    const res = await walletPing(checkout, NYC);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^dp_/), geo_check: expect.objectContaining({ region: 'NY', passed: true, cached: false }), ip_check: null });
    expect(await service.deps.db('device_pings').where({ id: res.body.id }).first()).toMatchObject({ customer_id: shop.customerId, merchant_id: shop.merchant.id });
    // The public endpoint sees the same customer's check.
    const publicPing = await ping({ ...LOS_ANGELES, customer_id: shop.customerId }, shop.merchant.client_secret);
    expect(publicPing.body.geo_check).toEqual({ ...res.body.geo_check, cached: true });
    expect((await walletPing(checkout, TORONTO)).body.geo_check).toMatchObject({ id: res.body.geo_check.id, cached: true });
  });

  it('authenticates with the checkout\'s client secret and validates the body', async () => {
    const checkout = await createCheckout(service, shop, { type: 'deposit' });
    expect(await walletPing(checkout, NYC, 'wrong')).toMatchObject({ status: 422, body: { error: 'Client secret not found.' } });
    expect(await walletPing({ ...checkout, id: 'chk_unknown' }, NYC)).toMatchObject({ status: 422 });
    for (const body of [{ latitude: 40 }, { ...NYC, customer_id: shop.customerId }, { latitude: 100, longitude: 0 }]) {
      const res = await walletPing(checkout, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: expect.any(String), hint: expect.any(String) });
    }
  });

  it('answers 404 when device pings are disabled for the account', async () => {
    const off = await openShop(service, { device_pings_enabled: false });
    const checkout = await createCheckout(service, off, { type: 'deposit' });
    expect(await walletPing(checkout, NYC)).toMatchObject({ status: 404, body: { hint: expect.stringMatching(/service operator/) } });
  });
});
