import { startService, type Service } from '../../support/harness';
import { request } from '../../support/http';
import { attempt, BANK, CARD, createCheckout, getCharge, openShop, recordedEvents, waitFor, type Shop } from '../../support/fixtures';
import { refundCharge } from '../../../src/charges/refund';
import { ServiceUnavailableError } from '../../../src/http/errors';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.stop());

const refund = (shop: Shop, chargeId: string) => request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key });

async function paidCharge(shop: Shop, method: Record<string, unknown> = CARD(), amount = 2500): Promise<string> {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: method });
  const id = res.body.charge.id as string;
  await waitFor(async () => (await getCharge(service, shop, id)).body.status === 'succeeded');
  return id;
}

describe('POST /api/v1/charges/{id}/refund', () => {
  it.each(['sandbox_alpha', 'sandbox_beta'])('refunds a succeeded card deposit in full through %s, once', async (processor) => {
    const shop = await openShop(service, { card_processor: processor, enabled_events: ['checkout.refunded'] });
    const chargeId = await paidCharge(shop);
    const res = await refund(shop, chargeId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: chargeId, status: 'refunded', amount_cents: 2500 });
    expect(Object.keys(res.body)).toEqual(Object.keys((await getCharge(service, shop, chargeId)).body));

    const second = await refund(shop, chargeId);
    expect(second.status).toBe(422);
    expect(second.body).toEqual({ request_id: expect.any(String), error: 'Unable to refund charge.', hint: expect.stringContaining(chargeId) });

    const checkoutId = (await service.deps.db('charges').where({ id: chargeId }).first()).checkout_id;
    const events = await recordedEvents(service, checkoutId);
    const refunded = events.find((e) => e.type === 'checkout.refunded')!;
    expect(refunded.enabled).toBe(true);
    expect(JSON.parse(refunded.body).data.charge).toMatchObject({ status: 'refunded', from_status: 'succeeded' });
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(1);
  });

  it('refunds exactly once under concurrent double submits', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const results = await Promise.all([refund(shop, chargeId), refund(shop, chargeId), refund(shop, chargeId)]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.error === 'Unable to refund charge.')).toBe(true);
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(1);
  });

  it('refuses a debit charge: only credit charges can be refunded', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'withdrawal', fixed_amount_cents: 100 });
    const res = await attempt(service, checkout, { payment_method: CARD() }); // no webhook_url: fails at the hold
    const r = await refund(shop, res.body.charge.id);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ request_id: expect.any(String), error: 'Only credit charges can be refunded.' });
  });

  it('refuses a charge that is not succeeded', async () => {
    const shop = await openShop(service);
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 });
    const res = await attempt(service, checkout, { payment_method: CARD('4000000000000002') });
    const r = await refund(shop, res.body.charge.id);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ request_id: expect.any(String), error: 'Unable to refund charge.', hint: expect.stringContaining(res.body.charge.id) });
  });

  it('refuses gamma and bank-rail deposits: refund through this processor is not possible now', async () => {
    const gamma = await openShop(service, { card_processor: 'sandbox_gamma' });
    const gammaCharge = await paidCharge(gamma);
    const a = await refund(gamma, gammaCharge);
    expect(a.status).toBe(422);
    expect(a.body).toEqual({ request_id: expect.any(String), error: 'Refund through this processor is not possible now.' });

    const alpha = await openShop(service, { sandbox_settlement_seconds: 0 });
    const bankCharge = await paidCharge(alpha, BANK());
    const b = await refund(alpha, bankCharge);
    expect(b.body).toEqual({ request_id: expect.any(String), error: 'Refund through this processor is not possible now.' });
  });

  it('answers Refund failed with the processor reason when the processor declines', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop, CARD('4000000000005126'));
    const r = await refund(shop, chargeId);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ request_id: expect.any(String), error: 'Refund failed', responsetext: expect.any(String) });
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');
  });

  it("answers a wrong id and another merchant's charge alike", async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const other = await openShop(service);
    const foreign = await refund(other, chargeId);
    const missing = await refund(other, 'ch_missing');
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toBe('Unable to refund charge.');
    expect(missing.body.error).toBe('Unable to refund charge.');
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');
  });

  it('the dashboard refund follows the same rules and result', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const r = await request(service.baseUrl, 'POST', `/admin/v1/charges/${chargeId}/refund`, { token: service.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('refunded');
    expect((await refund(shop, chargeId)).body.error).toBe('Unable to refund charge.');
  });

  it('the admin API (dashboard refund and simulator) answers the same refusals with a hint', async () => {
    const admin = (path: string, body?: unknown) => request(service.baseUrl, 'POST', `/admin/v1${path}`, { token: service.adminToken, body });
    const alpha = await openShop(service, { sandbox_settlement_seconds: 0 });
    const bankCharge = await paidCharge(alpha, BANK());
    for (const res of [await admin(`/charges/${bankCharge}/refund`), await admin(`/sandbox/charges/${bankCharge}/transition`, { to: 'refunded' })]) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ request_id: expect.any(String), error: 'Refund through this processor is not possible now.', hint: expect.stringContaining(bankCharge) });
    }
    const declined = await paidCharge(alpha, CARD('4000000000005126'));
    const r = await admin(`/charges/${declined}/refund`);
    expect(r.body).toEqual({ request_id: expect.any(String), error: 'Refund failed', responsetext: expect.any(String), hint: expect.stringContaining('responsetext') });
    const payout = await createCheckout(service, alpha, { type: 'withdrawal', fixed_amount_cents: 100 });
    const failed = await attempt(service, payout, { payment_method: CARD() });
    expect((await admin(`/charges/${failed.body.charge.id}/refund`)).body).toEqual({
      request_id: expect.any(String),
      error: 'Only credit charges can be refunded.',
      hint: expect.stringContaining('only deposits'),
    });
    // The public answers stay the contract's exact bodies (the tests above).
    expect((await refund(alpha, bankCharge)).body).toEqual({ request_id: expect.any(String), error: 'Refund through this processor is not possible now.' });
  });
});

describe('sandbox 1.08 USD refund flow', () => {
  it('a deposit of exactly 108 cents succeeds and is then refunded by the sandbox (checkout.refunded)', async () => {
    const shop = await openShop(service, { enabled_events: ['checkout.refunded'] });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 108 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.body.charge.status).toBe('succeeded');
    await waitFor(async () => (await getCharge(service, shop, res.body.charge.id)).body.status === 'refunded');
    const types = (await recordedEvents(service, checkout.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.succeeded', 'checkout.refunded']);
  });

  it('does not refund 108 cents for a production merchant', async () => {
    const shop = await openShop(service, {}, 'production');
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 108 });
    const res = await attempt(service, checkout, { payment_method: CARD('4111111111111111') });
    expect(res.body.charge.status).toBe('succeeded');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await getCharge(service, shop, res.body.charge.id)).body.status).toBe('succeeded');
    const testCard = await attempt(service, await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 100 }), { payment_method: CARD() });
    expect(testCard.status).toBe(422);
  });
});

describe('reading refunds back (audit)', () => {
  // Audit regression: a refund's claim (its pending row, written before the processor is asked)
  // was listed and readable as a refund, though no money had moved yet and a declined refund
  // deletes it again: a merchant reconciling from GET /api/v1/refunds counted refunds never made.
  it('lists and answers a refund only once it is recorded, not while it is at the processor', async () => {
    const { createRefundActivities } = await import('../../../activities/refunds');
    const activities = createRefundActivities(service.deps);
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const get = (path: string) => request(service.baseUrl, 'GET', path, { token: shop.merchant.api_key });

    // The workflow's first step: the charge is claimed and the processor has answered, nothing is recorded yet.
    const { processorRefundId } = await activities.refundAtProcessor({ chargeId, source: 'api' });
    const [claim] = await service.deps.db('refunds').where({ charge_id: chargeId });
    expect(claim.status).toBe('pending');
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');
    expect((await get('/api/v1/refunds')).body.results).toEqual([]);
    expect((await get(`/api/v1/refunds/${claim.id}`)).status).toBe(422);

    await activities.recordRefund({ chargeId, processorRefundId, source: 'api' });
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('refunded');
    expect((await get('/api/v1/refunds')).body.results).toEqual([expect.objectContaining({ id: claim.id, charge_id: chargeId, amount_cents: 2500 })]);
    expect((await get(`/api/v1/refunds/${claim.id}`)).body).toMatchObject({ id: claim.id, charge_id: chargeId });
  });
});

describe('the refund read-back shape (audit)', () => {
  // Audit regression: the simulator's move to refunded records its refund with source `processor`,
  // which the Refund schema (and so the OpenAPI document) did not list: a client validating
  // GET /api/v1/refunds against the document rejected the answer.
  it('describes every source a refund is recorded with, the simulator included', async () => {
    const { Refund } = await import('../../../src/readback/schemas');
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const moved = await request(service.baseUrl, 'POST', `/admin/v1/sandbox/charges/${chargeId}/transition`, { token: service.adminToken, body: { to: 'refunded' } });
    expect(moved.status).toBe(200);
    const [listed] = (await request(service.baseUrl, 'GET', '/api/v1/refunds', { token: shop.merchant.api_key })).body.results;
    expect(listed).toMatchObject({ charge_id: chargeId, source: 'processor' });
    expect(Refund.safeParse(listed).success).toBe(true);
  });
});

describe('the dashboard refund reads every body as JSON, whatever its Content-Type (audit)', () => {
  // Audit regression: the admin API parsed only a JSON Content-Type, so a refund body sent as curl's
  // default form type (`-d '{"amount_cents":100}'`) or as text was never read, and the charge was
  // refunded in full, where the public endpoint (same rules) refuses such a body. Now both read it.
  it.each([
    ['JSON sent as curl\'s default form type', '{"amount_cents":100}', 'application/x-www-form-urlencoded', 422, 'Refunds take no body.'],
    ['JSON sent as text', '{"amount_cents":100}', 'text/plain', 422, 'Refunds take no body.'],
    ['a form field', 'amount_cents=100', 'application/x-www-form-urlencoded', 400, 'Request body is not valid JSON.'],
    ['text', 'refund 1.00 please', 'text/plain', 400, 'Request body is not valid JSON.'],
  ])('%s is refused like on the public endpoint and refunds nothing', async (_what, rawBody, contentType, status, error) => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    const res = await request(service.baseUrl, 'POST', `/admin/v1/charges/${chargeId}/refund`, { token: service.adminToken, rawBody, headers: { 'content-type': contentType } });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error, hint: expect.any(String) });
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(0);
    const publicAnswer = await request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: shop.merchant.api_key, rawBody, headers: { 'content-type': contentType } });
    expect(publicAnswer.status).toBe(status);
    expect(publicAnswer.body.error).toBe(error);
    // A wrong token is still 401, not the body's 400.
    expect((await request(service.baseUrl, 'POST', `/admin/v1/charges/${chargeId}/refund`, { token: 'wrong-admin-token-0123456789', rawBody, headers: { 'content-type': contentType } })).status).toBe(401);
    expect((await request(service.baseUrl, 'POST', `/admin/v1/charges/${chargeId}/refund`, { token: service.adminToken })).body.status).toBe('refunded');
  });
});

describe('a refund whose workflow is stopped before it ends (audit)', () => {
  // Audit finding: a refund workflow terminated by an operator (or timed out) answered the waiting
  // request with a generic 500. It is a 503 now: nothing was decided, and the request sent again runs.
  it('answers 503 with a hint, and the request sent again refunds the charge once', async () => {
    const shop = await openShop(service);
    const chargeId = await paidCharge(shop);
    // The refund's workflow goes to a task queue no worker polls, so it waits until it is terminated.
    const stalled = { ...service.deps, config: { ...service.deps.config, taskQueue: `no-worker-${chargeId}` } };
    const answer = refundCharge(stalled, chargeId, { source: 'api', merchantId: shop.merchant.id }).then(() => null, (error: unknown) => error);
    const handle = service.deps.temporal.workflow.getHandle(chargeId);
    await waitFor(() => handle.describe().then(() => true, () => false), 10_000, 'the refund workflow');
    await handle.terminate('stopped by an operator');
    const error = await answer;
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).status).toBe(503);
    expect((error as ServiceUnavailableError).body()).toMatchObject({ error: 'The refund did not finish.', hint: expect.stringContaining(chargeId) });
    expect((await getCharge(service, shop, chargeId)).body.status).toBe('succeeded');

    const again = await refund(shop, chargeId);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('refunded');
    expect(await service.deps.db('refunds').where({ charge_id: chargeId })).toHaveLength(1);
  });
});
