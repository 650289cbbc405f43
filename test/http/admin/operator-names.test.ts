import { randomUUID } from 'node:crypto';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { onboard, request, uniqueCustomer } from '../../support/http';
import { attempt, CARD, createCheckout, getCharge, pausedForReview, waitFor, type Shop } from '../../support/fixtures';

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

const admin = (method: string, path: string) => request(service.baseUrl, method, `/admin/v1${path}`, { token: service.adminToken });
const errorWithHint = { error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) };

/** A merchant with a name of its own (reviews from 500 cents) and one customer, Grace Hopper. */
async function namedShop(name: string): Promise<Shop> {
  const merchant = await onboard(service, { name, settings: { review: { enabled: true, min_amount_cents: 500 } } });
  const customer = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: merchant.api_key, body: uniqueCustomer({ first_name: 'Grace', last_name: 'Hopper' }) });
  return { merchant, customerId: customer.body.id };
}

describe('operators read names, not ids', () => {
  const tag = randomUUID().slice(0, 8);
  let zebra: Shop;
  let yak: Shop;
  beforeAll(async () => {
    zebra = await namedShop(`Zebra Games ${tag}`);
    yak = await namedShop(`Yak 100%_Sports ${tag}`);
  });

  it('names the merchant of each event in the event log, and of one event', async () => {
    const checkout = await createCheckout(service, zebra, { type: 'deposit', fixed_amount_cents: 700 });
    expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
    const events = await waitFor(async () => {
      const res = await admin('GET', `/events?merchant_id=${zebra.merchant.id}`);
      return res.body.results?.length > 0 && res.body.results;
    });
    expect(events.map((e: { merchant_name: string }) => e.merchant_name)).toEqual(events.map(() => `Zebra Games ${tag}`));
    const one = await admin('GET', `/events/${events[0].id}`);
    expect([one.status, one.body.merchant_name, one.body.merchant_id]).toEqual([200, `Zebra Games ${tag}`, zebra.merchant.id]);
  });

  it('finds merchants by a fragment of the name or id (q), case-insensitive, wildcards taken literally', async () => {
    const byName = await admin('GET', `/merchants?q=${encodeURIComponent(`zebra games ${tag}`.toUpperCase())}`);
    expect([byName.status, byName.body.results.map((m: { id: string }) => m.id)]).toEqual([200, [zebra.merchant.id]]);
    const byId = await admin('GET', `/merchants?q=${zebra.merchant.id.slice(4, 14)}`);
    expect(byId.body.results.map((m: { id: string }) => m.id)).toEqual([zebra.merchant.id]);
    const literal = await admin('GET', `/merchants?q=${encodeURIComponent(`100%_Sports ${tag}`)}`);
    expect(literal.body.results.map((m: { name: string }) => m.name)).toEqual([`Yak 100%_Sports ${tag}`]);
    expect((await admin('GET', `/merchants?q=${encodeURIComponent(`0%_S% ${tag}`)}`)).body.results).toEqual([]);
    // Without q the list is as before: every merchant, newest first.
    const all = await admin('GET', '/merchants?limit=2');
    expect(all.body.results.map((m: { id: string }) => m.id)).toEqual([yak.merchant.id, zebra.merchant.id]);
  });

  it('names the merchant and customer on checkouts, charges, a checkout and restricted customers', async () => {
    const checkout = await createCheckout(service, zebra, { type: 'deposit', fixed_amount_cents: 1800 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    await waitFor(async () => (await getCharge(service, zebra, res.body.charge.id)).body.status === 'succeeded');
    const customer = { id: zebra.customerId, email: expect.any(String), first_name: 'Grace', last_name: 'Hopper' };

    const checkouts = await admin('GET', `/checkouts?q=${checkout.id}`);
    expect(checkouts.body.results).toEqual([expect.objectContaining({ id: checkout.id, merchant_id: zebra.merchant.id, merchant_name: `Zebra Games ${tag}`, customer })]);
    const charges = await admin('GET', `/charges?q=${res.body.charge.id}`);
    expect(charges.body.results).toEqual([expect.objectContaining({ id: res.body.charge.id, merchant_id: zebra.merchant.id, merchant_name: `Zebra Games ${tag}` })]);
    const detail = await admin('GET', `/checkouts/${checkout.id}`);
    expect(detail.body).toMatchObject({ merchant_id: zebra.merchant.id, merchant_name: `Zebra Games ${tag}`, customer });

    await service.deps.db('customers').where({ id: yak.customerId }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
    const restricted = await admin('GET', `/customers/restricted?merchant_id=${yak.merchant.id}`);
    expect(restricted.body.results).toEqual([expect.objectContaining({ id: yak.customerId, merchant_id: yak.merchant.id, merchant_name: `Yak 100%_Sports ${tag}`, first_name: 'Grace' })]);
  });

  it('filters the review queue by merchant, amount and age, names each merchant, and counts each status', async () => {
    const shop = await namedShop(`Queue ${tag}`);
    const small = await pausedForReview(service, shop);
    const old = await pausedForReview(service, shop);
    await service.deps.db('reviews').where({ id: small }).update({ amount_cents: 600 });
    await service.deps.db('reviews').where({ id: old }).update({ created_at: new Date(Date.now() - 3 * 3_600_000) });
    const decided = await pausedForReview(service, shop);
    expect((await request(service.baseUrl, 'POST', `/admin/v1/reviews/${decided}/decline`, { token: service.adminToken })).status).toBe(200);
    const other = await pausedForReview(service, zebra);

    const queue = await admin('GET', `/reviews?status=pending&merchant_id=${shop.merchant.id}`);
    expect([queue.status, queue.body.results.map((r: { id: string }) => r.id), queue.body.counts]).toEqual([200, [old, small], { pending: 2, approved: 0, declined: 1 }]);
    expect(queue.body.results[0]).toMatchObject({ merchant_id: shop.merchant.id, merchant_name: `Queue ${tag}`, customer: { first_name: 'Grace', last_name: 'Hopper' } });
    const atLeast = await admin('GET', `/reviews?merchant_id=${shop.merchant.id}&min_amount_cents=1000`);
    expect([atLeast.body.results.map((r: { id: string }) => r.id), atLeast.body.counts]).toEqual([[old, decided], { pending: 1, approved: 0, declined: 1 }]);
    const atMost = await admin('GET', `/reviews?status=pending&merchant_id=${shop.merchant.id}&max_amount_cents=600`);
    expect(atMost.body.results.map((r: { id: string }) => r.id)).toEqual([small]);
    const waiting = await admin('GET', `/reviews?status=pending&merchant_id=${shop.merchant.id}&min_age_minutes=60`);
    expect([waiting.body.results.map((r: { id: string }) => r.id), waiting.body.counts]).toEqual([[old], { pending: 1, approved: 0, declined: 0 }]);
    const everyone = await admin('GET', `/reviews?status=pending&limit=500&order=newest`);
    expect(everyone.body.results.find((r: { id: string }) => r.id === other)).toMatchObject({ merchant_name: `Zebra Games ${tag}` });

    for (const query of ['min_amount_cents=700&max_amount_cents=600', 'min_amount_cents=-1', 'min_age_minutes=soon']) {
      const res = await admin('GET', `/reviews?${query}`);
      expect([query, res.status, res.body]).toEqual([query, 422, errorWithHint]);
    }
  });
});
