import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { request } from '../../support/http';
import { createCheckout, openShop, type Shop } from '../../support/fixtures';
import { member, uniqueEmail } from '../../support/merchant-accounts';
import { acceptOperatorInvitation, inviteOperator } from '../../support/operators';

// Every admin list pages with a cursor: walked page by page, each list answers every row of its
// filter exactly once, in its documented order (ties on created_at broken by id), and ends with
// has_more false. The rows are made with shared created_at values, so the tie-break is exercised.

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

const admin = (path: string) => request(service.baseUrl, 'GET', path, { token: service.adminToken });
const suffix = () => randomBytes(8).toString('hex');
const db = (): Knex => service.deps.db;

/** Reads every page of `path` with `limit` rows a page; the ids in the order answered. */
async function walk(path: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 200; page++) {
    const res = await admin(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${after ? `&starting_after=${after}` : ''}`);
    expect(res.status).toBe(200);
    const pageIds = (res.body.results as Array<{ id: string }>).map((r) => r.id);
    ids.push(...pageIds);
    if (!res.body.has_more) {
      expect(res.body.next_starting_after).toBeNull();
      expect(pageIds.length).toBeLessThanOrEqual(limit);
      return ids;
    }
    expect(pageIds).toHaveLength(limit);
    expect(res.body.next_starting_after).toBe(pageIds[pageIds.length - 1]);
    after = res.body.next_starting_after;
  }
  throw new Error(`${path} did not end`);
}

/** The ids of `table` matching `where`, in a list's order: what a walk must answer. */
async function expected(table: string, where: (q: Knex.QueryBuilder) => void, order: 'desc' | 'asc' = 'desc'): Promise<string[]> {
  const query = db()(table).select('id');
  where(query);
  const rows = await query.orderBy(table === 'events' ? [{ column: 'seq', order }] : [{ column: 'created_at', order }, { column: 'id', order }]);
  return rows.map((r: { id: string }) => r.id);
}

/** Every pair of rows shares a created_at, so a page boundary often falls inside a tie. */
const tied = (i: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, Math.floor(i / 2)));

let a: Shop;
let b: Shop;
let checkouts: string[];
let charges: string[];
let pmA: string;

async function savedCard(shop: Shop): Promise<string> {
  const id = `pm_${suffix()}`;
  await db()('payment_methods').insert({
    id, merchant_id: shop.merchant.id, customer_id: shop.customerId, payment_type: 'card',
    details: JSON.stringify({ card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 } }), fingerprint: `fp_${suffix()}`, processor_token: 'sbx_x', saved: true,
  });
  return id;
}

beforeAll(async () => {
  [a, b] = [await openShop(service), await openShop(service)];
  pmA = await savedCard(a);
  checkouts = [];
  for (let i = 0; i < 7; i++) checkouts.push((await createCheckout(service, i === 6 ? b : a, { type: 'deposit', fixed_amount_cents: 1000 + i })).id);
  for (const [i, id] of checkouts.entries()) await db()('checkouts').where({ id }).update({ created_at: tied(i) });
  charges = checkouts.slice(0, 6).map(() => `ch_${suffix()}`);
  await db()('charges').insert(charges.map((id, i) => ({
    id, merchant_id: a.merchant.id, checkout_id: checkouts[i], customer_id: a.customerId, payment_method_id: pmA, attempt_key: `att_${suffix()}`,
    currency: 'USD', processor: 'sandbox_alpha', amount_cents: 1000 + i, transaction_type: 'credit', status: i % 2 ? 'succeeded' : 'failed', created_at: tied(i), updated_at: tied(i),
  })));
}, 60_000);

describe('admin lists page with a cursor', () => {
  it('merchants: every merchant once, newest first, in pages', async () => {
    for (let i = 0; i < 4; i++) await openShop(service);
    const all = await db()('merchants').select('id');
    await db()('merchants').whereIn('id', all.slice(0, 4).map((m: { id: string }) => m.id)).update({ created_at: tied(0) });
    const ids = await walk('/admin/v1/merchants', 2);
    expect(ids).toEqual(await expected('merchants', () => {}));
    expect(new Set(ids).size).toBe(all.length);
  });

  it('checkouts: the search walks in pages, and its filters combine with the cursor', async () => {
    expect(await walk(`/admin/v1/checkouts?merchant_id=${a.merchant.id}`, 2)).toEqual(await expected('checkouts', (q) => q.where({ merchant_id: a.merchant.id })));
    expect(await walk('/admin/v1/checkouts', 3)).toEqual(await expected('checkouts', () => {}));
    const byCharge = await walk(`/admin/v1/checkouts?q=${charges[3]}`, 1);
    expect(byCharge).toEqual([checkouts[3]]);
  });

  it('charges: in pages, newest first; a filter narrows every page', async () => {
    expect(await walk(`/admin/v1/charges?merchant_id=${a.merchant.id}`, 4)).toEqual(await expected('charges', (q) => q.where({ merchant_id: a.merchant.id })));
    expect(await walk(`/admin/v1/charges?customer_id=${a.customerId}`, 1)).toEqual(await expected('charges', (q) => q.where({ customer_id: a.customerId })));
    expect(await walk(`/admin/v1/charges?checkout_id=${checkouts[2]}`, 1)).toEqual([charges[2]]);
  });

  it('restricted customers: only the restricted, newest customer first, in pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await openShop(service)).customerId);
    for (const [i, id] of made.entries()) {
      await db()('customers').where({ id }).update({ created_at: tied(i), ...(i === 2 ? {} : { restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() }) });
    }
    const ids = await walk('/admin/v1/customers/restricted', 2);
    expect(ids).toEqual(await expected('customers', (q) => q.whereNotNull('restriction_reason')));
    expect(ids).toEqual(expect.arrayContaining(made.filter((_, i) => i !== 2)));
    expect(ids).not.toContain(made[2]);
  });

  it('reviews: the queue oldest first and decisions newest first, in pages; status and merchant narrow each page', async () => {
    const reviews = checkouts.slice(0, 6).map((checkoutId, i) => ({
      id: `cpilr_${suffix()}`, merchant_id: a.merchant.id, checkout_id: checkoutId, customer_id: a.customerId, payment_method_id: pmA, amount_cents: 700 + i,
      status: i % 3 === 0 ? 'approved' : 'pending', created_at: tied(i), ...(i % 3 === 0 ? { decided_at: tied(i), decided_by: 'admin API' } : {}),
    }));
    await db()('reviews').insert(reviews);
    const queue = await walk(`/admin/v1/reviews?status=pending&merchant_id=${a.merchant.id}`, 2);
    expect(queue).toEqual(await expected('reviews', (q) => q.where({ status: 'pending', merchant_id: a.merchant.id }), 'asc'));
    expect(queue).toHaveLength(4);
    expect(await walk('/admin/v1/reviews?status=approved&order=newest', 1)).toEqual([reviews[3]!.id, reviews[0]!.id]);
    expect(await walk('/admin/v1/reviews?order=newest', 4)).toEqual(await expected('reviews', () => {}));

    // A reviewer who decides the last review of a page still reads on from it.
    const first = await admin(`/admin/v1/reviews?status=pending&merchant_id=${a.merchant.id}&limit=2`);
    await db()('reviews').where({ id: first.body.next_starting_after }).update({ status: 'declined', decided_at: new Date() });
    const next = await admin(`/admin/v1/reviews?status=pending&merchant_id=${a.merchant.id}&limit=2&starting_after=${first.body.next_starting_after}`);
    expect(next.body.results.map((r: { id: string }) => r.id)).toEqual(queue.slice(2, 4));
  });

  it('events: the log newest first by commit order, in pages, its filters combined', async () => {
    const rows = checkouts.map((checkoutId, i) => {
      const id = `ev_${suffix()}`;
      const type = i % 2 ? 'checkout.succeeded' : 'checkout.failed';
      return {
        id, merchant_id: i === 6 ? b.merchant.id : a.merchant.id, type, checkout_id: checkoutId, customer_id: a.customerId, body: JSON.stringify({ event_id: id, type, data: {} }),
        enabled: false, channel: 'outbox', delivery_status: 'not_enabled', dispatched_at: new Date(), created_at: tied(0),
      };
    });
    for (const row of rows) await db()('events').insert(row);
    expect(await walk(`/admin/v1/events?merchant_id=${a.merchant.id}`, 2)).toEqual(await expected('events', (q) => q.where({ merchant_id: a.merchant.id })));
    const succeeded = await walk(`/admin/v1/events?merchant_id=${a.merchant.id}&type=checkout.succeeded`, 1);
    expect(succeeded).toEqual(rows.filter((r, i) => i !== 6 && r.type === 'checkout.succeeded').map((r) => r.id).reverse());
    expect(await walk('/admin/v1/events', 3)).toEqual(await expected('events', () => {}));
  });

  it('subscriptions: newest first, in pages, status and customer narrowing every page', async () => {
    const subs = checkouts.slice(0, 5).map((checkoutId, i) => ({
      id: `sub_${suffix()}`, merchant_id: a.merchant.id, customer_id: a.customerId, checkout_id: checkoutId, payment_method_id: pmA, first_charge_id: charges[i],
      status: i === 1 ? 'cancelled' : 'active', interval: 'month', interval_count: 1, amount_cents: 1000, currency: 'USD', anchor_at: tied(i),
      current_period_start: tied(i), current_period_end: tied(i + 60), workflow_started_at: new Date(), created_at: tied(i),
    }));
    await db()('subscriptions').insert(subs);
    expect(await walk(`/admin/v1/subscriptions?merchant_id=${a.merchant.id}`, 2)).toEqual(await expected('subscriptions', (q) => q.where({ merchant_id: a.merchant.id })));
    expect(await walk(`/admin/v1/subscriptions?customer_id=${a.customerId}&status=active`, 3)).toEqual(await expected('subscriptions', (q) => q.where({ customer_id: a.customerId, status: 'active' })));
  });

  it("the operator's people: oldest first, in pages; a merchant's people are never listed", async () => {
    for (let i = 0; i < 3; i++) await acceptOperatorInvitation(service, (await inviteOperator(service, uniqueEmail('operator'), 'operator_viewer')).body.accept_url);
    const person = await member(service, a.merchant.id, 'viewer');
    expect(await walk('/admin/v1/operators', 2)).toEqual(await expected('people', (q) => q.whereNull('merchant_id'), 'asc'));
    // A merchant's person is no cursor of the operators' list.
    expect((await admin(`/admin/v1/operators?starting_after=${person.user.id}`)).status).toBe(404);
  });

  it("a merchant's API keys: newest first, in pages, the cursor a key prefix; another merchant's prefix is 404", async () => {
    const shop = await openShop(service);
    const issued: string[] = [];
    for (let i = 0; i < 3; i++) issued.push((await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/api_keys`, { token: service.adminToken })).body.key_prefix);
    const prefixes: string[] = [];
    let after: string | null = null;
    do {
      const res = await admin(`/admin/v1/merchants/${shop.merchant.id}/api_keys?limit=2${after ? `&starting_after=${after}` : ''}`);
      expect([res.status, res.body.results.length <= 2]).toEqual([200, true]);
      prefixes.push(...res.body.results.map((k: { key_prefix: string }) => k.key_prefix));
      after = res.body.next_starting_after;
      expect(after === null).toBe(!res.body.has_more);
    } while (after);
    // The three issued here, newest first, then the key the merchant was onboarded with.
    expect([prefixes.length, prefixes.slice(0, 3)]).toEqual([4, [...issued].reverse()]);
    const foreign = await admin(`/admin/v1/merchants/${a.merchant.id}/api_keys?starting_after=${issued[0]}`);
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Unknown starting_after.']);
  });

  it('refuses a cursor that is not an item of the list (or is another merchant\'s) with a 404, never a 500', async () => {
    const otherCheckout = checkouts[6]!;
    const cases: Array<[string, string]> = [
      ['/admin/v1/merchants', 'mer_unknown'],
      ['/admin/v1/checkouts', 'chk_unknown'],
      ['/admin/v1/charges', checkouts[0]!],
      [`/admin/v1/checkouts?merchant_id=${a.merchant.id}`, otherCheckout],
      ['/admin/v1/customers/restricted', 'cus_unknown'],
      ['/admin/v1/reviews', 'cpilr_unknown'],
      ['/admin/v1/events', 'ev_unknown'],
      ['/admin/v1/subscriptions', 'sub_unknown'],
    ];
    for (const [path, cursor] of cases) {
      const res = await admin(`${path}${path.includes('?') ? '&' : '?'}starting_after=${cursor}`);
      expect([path, res.status, res.body.error]).toEqual([path, 404, 'Unknown starting_after.']);
      expect(res.body.hint).toContain(cursor);
    }
    expect((await admin('/admin/v1/events?limit=501')).status).toBe(422);
    expect((await admin('/admin/v1/checkouts?limit=201')).status).toBe(422);
  });
});
