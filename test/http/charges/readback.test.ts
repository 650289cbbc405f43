import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, getCharge, openShop, waitFor, type Shop } from '../../support/fixtures';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const get = (shop: Shop, path: string) => request(service.baseUrl, 'GET', path, { token: shop.merchant.api_key });

async function paidCheckout(shop: Shop, number = '4242424242424242') {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
  const res = await attempt(service, checkout, { payment_method: CARD(number) });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => ['succeeded', 'failed'].includes((await getCharge(service, shop, chargeId)).body.status));
  return { checkout, chargeId };
}

describe('reading back (extensions)', () => {
  it('GET /api/v1/checkouts/{id} answers the recorded checkout with its charges, never its client secret', async () => {
    const shop = await openShop(service);
    const { checkout, chargeId } = await paidCheckout(shop);
    const res = await get(shop, `/api/v1/checkouts/${checkout.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: checkout.id, customer_id: shop.customerId, type: 'deposit', flow: 'preset_deposit', state: 'completed', fixed_amount_cents: 2500, review: null });
    expect(res.body.charges.map((c: { id: string }) => c.id)).toEqual([chargeId]);
    expect(res.body.charges[0]).toEqual((await getCharge(service, shop, chargeId)).body);
    expect(res.text).not.toContain(checkout.client_secret);
    expect(res.body).not.toHaveProperty('client_secret');
  });

  it('GET /api/v1/customers/{id} answers the customer with its restriction', async () => {
    const shop = await openShop(service);
    const res = await get(shop, `/api/v1/customers/${shop.customerId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: shop.customerId, first_name: 'Ada', restricted: false, restriction_reason: null });
    expect(res.body.updated_at).toEqual(expect.any(String));
  });

  it("answers another merchant's checkout, customer, charge, refund and event exactly like a missing one (422)", async () => {
    const owner = await openShop(service);
    const other = await openShop(service);
    const { checkout, chargeId } = await paidCheckout(owner);
    const refund = await request(service.baseUrl, 'POST', `/api/v1/charges/${chargeId}/refund`, { token: owner.merchant.api_key });
    expect(refund.status).toBe(200);
    const refundId = (await get(owner, '/api/v1/refunds')).body.results[0].id as string;
    const eventId = (await get(owner, '/api/v1/event_log')).body.results[0].id as string;
    for (const [path, missing] of [
      [`/api/v1/checkouts/${checkout.id}`, '/api/v1/checkouts/chk_missing'],
      [`/api/v1/customers/${owner.customerId}`, '/api/v1/customers/cus_missing'],
      [`/api/v1/refunds/${refundId}`, '/api/v1/refunds/re_missing'],
      [`/api/v1/events/${eventId}`, '/api/v1/events/ev_missing'],
      [`/api/v1/checkouts?starting_after=${checkout.id}`, '/api/v1/checkouts?starting_after=chk_missing'],
    ] as const) {
      expect((await get(owner, path)).status).toBe(200);
      const foreign = await get(other, path);
      const absent = await get(other, missing);
      expect([foreign.status, absent.status]).toEqual([422, 422]);
      expect(Object.keys(foreign.body).sort()).toEqual(['error', 'hint', 'request_id']);
      expect(foreign.body.error).toBe(absent.body.error);
    }
    expect((await get(other, '/api/v1/charges')).body.results).toEqual([]);
  });

  it('pages through checkouts newest first with limit and starting_after, scoped to the merchant', async () => {
    const shop = await openShop(service);
    await openShop(service).then((other) => createCheckout(service, other, { type: 'deposit' }));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createCheckout(service, shop, { type: 'deposit' })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await get(shop, `/api/v1/checkouts?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.results.map((c: { id: string }) => c.id));
      cursor = res.body.next_starting_after;
      expect(res.body.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const bad = await get(shop, '/api/v1/checkouts?limit=0');
    expect(bad.status).toBe(422);
    expect(bad.body.hint).toContain('limit');
  });

  it('lists charges (filtered by checkout) and refunds', async () => {
    const shop = await openShop(service);
    const first = await paidCheckout(shop, '4000000000000002');
    const second = await paidCheckout(shop);
    const all = await get(shop, '/api/v1/charges');
    expect(all.body.results.map((c: { id: string }) => c.id)).toEqual([second.chargeId, first.chargeId]);
    expect(all.body.results[1]).toMatchObject({ status: 'failed', failure_code: 'card_declined' });
    const filtered = await get(shop, `/api/v1/charges?checkout_id=${first.checkout.id}`);
    expect(filtered.body.results.map((c: { id: string }) => c.id)).toEqual([first.chargeId]);

    await request(service.baseUrl, 'POST', `/api/v1/charges/${second.chargeId}/refund`, { token: shop.merchant.api_key });
    const refunds = await get(shop, '/api/v1/refunds');
    expect(refunds.body.results).toEqual([{ id: expect.stringMatching(/^re_/), charge_id: second.chargeId, amount_cents: 2500, source: 'api', created_at: expect.any(String) }]);
    expect((await get(shop, `/api/v1/refunds/${refunds.body.results[0].id}`)).body).toEqual(refunds.body.results[0]);
  });

  it('lists delivered events apart from the full event log, each with its delivery attempts', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    // A declined card records checkout.failed, which is off by default: in the log, never delivered.
    const declined = await paidCheckout(shop, '4000000000000002');
    const paid = await paidCheckout(shop);
    await waitFor(() => receiver.forCheckout(paid.checkout.id).length > 0);
    const delivered = await waitFor(async () => {
      const res = await get(shop, '/api/v1/events');
      return res.body.results[0]?.delivery_status === 'delivered' ? res : undefined;
    });
    expect(delivered.body.results.map((e: { type: string }) => e.type)).toEqual(['checkout.succeeded']);
    expect(delivered.body.results[0].attempts[0]).toMatchObject({ attempt: 1, http_status: 200, url: receiver.url });
    expect(delivered.body.results[0].payload.event_id).toBe(delivered.body.results[0].id);

    const log = await get(shop, '/api/v1/event_log');
    const types = log.body.results.map((e: { type: string; checkout_id: string; delivery_status: string }) => [e.type, e.checkout_id, e.delivery_status]);
    expect(types).toEqual([
      ['checkout.succeeded', paid.checkout.id, 'delivered'],
      ['checkout.failed', declined.checkout.id, 'not_enabled'],
    ]);
    const one = await get(shop, `/api/v1/events/${log.body.results[1].id}`);
    expect(one.body).toMatchObject({ type: 'checkout.failed', enabled: false, attempts: [] });
    const byType = await get(shop, '/api/v1/event_log?type=checkout.failed');
    expect(byType.body.results).toHaveLength(1);
  });

  // Audit regression: an event type filter was compared as given, so a misspelt or differently
  // cased type answered an empty list, read as "no such event was sent", instead of an error.
  it('refuses an event type filter outside the catalog with 422, on both merchant lists and the admin log', async () => {
    const shop = await openShop(service);
    for (const path of ['/api/v1/events?type=checkout.succeded', '/api/v1/event_log?type=CHECKOUT.FAILED']) {
      const res = await get(shop, path);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: expect.stringContaining('type'), hint: expect.stringContaining('checkout.succeeded'), request_id: expect.any(String) });
    }
    const admin = await request(service.baseUrl, 'GET', `/admin/v1/events?merchant_id=${shop.merchant.id}&type=Checkout.Succeeded`, { token: service.adminToken });
    expect(admin.status).toBe(422);
    expect(admin.body.hint).toContain('checkout.succeeded');
    expect((await get(shop, '/api/v1/event_log?type=checkout.failed')).status).toBe(200);
    expect((await request(service.baseUrl, 'GET', `/admin/v1/events?merchant_id=${shop.merchant.id}&type=checkout.failed`, { token: service.adminToken })).status).toBe(200);
  });

  // The operator spec writes the event log's route as /admin/v1/events?merchant_id=&type=: an empty
  // parameter filters by nothing (it was 422, "Too small").
  it('reads empty parameters of the admin event log as no filter', async () => {
    const [one, other] = [await openShop(service), await openShop(service)];
    // A declined card records checkout.failed for each shop (in the log, though not delivered).
    const failed = [await paidCheckout(one, '4000000000000002'), await paidCheckout(other, '4000000000000002')];
    const admin = (query: string) => request(service.baseUrl, 'GET', `/admin/v1/events${query}`, { token: service.adminToken });
    const ofOne = await admin(`?merchant_id=${one.merchant.id}&type=`);
    expect(ofOne.status).toBe(200);
    expect(ofOne.body.results.map((e: { checkout_id: string }) => e.checkout_id)).toEqual([failed[0]!.checkout.id]);
    const everyone = await admin('?merchant_id=&type=&limit=500');
    expect(everyone.status).toBe(200);
    const checkouts = everyone.body.results.map((e: { checkout_id: string }) => e.checkout_id);
    expect(checkouts).toEqual(expect.arrayContaining(failed.map((f) => f.checkout.id)));
  });
});
