import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, getCharge, openShop, waitFor, type Shop } from '../../support/fixtures';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { ALL_ROLES, asMember, errorWithHint, describeGuards, member, type GuardedRoute, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

/** A deposit paid by card, its charge succeeded. */
async function paidCheckout(shop: Shop, amount = 2500) {
  const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: amount });
  const res = await attempt(service, checkout, { payment_method: CARD() });
  const chargeId = res.body.charge.id as string;
  await waitFor(async () => (await getCharge(service, shop, chargeId)).body.status === 'succeeded');
  return { checkoutId: checkout.id as string, chargeId };
}

let shop: Shop;
let people: Record<string, SignedIn>;
let paid: { checkoutId: string; chargeId: string };
beforeAll(async () => {
  shop = await openShop(service, { webhook_url: receiver.url });
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
  paid = await paidCheckout(shop);
});

const ROUTES: GuardedRoute[] = [
  { name: 'GET /checkouts', method: 'GET', path: () => '/checkouts', allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'GET /checkouts/{id}', method: 'GET', path: () => `/checkouts/${paid.checkoutId}`, allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'GET /checkouts/{id}/timeline', method: 'GET', path: () => `/checkouts/${paid.checkoutId}/timeline`, allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'GET /charges', method: 'GET', path: () => '/charges', allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'POST /charges/{id}/refund', method: 'POST', path: async () => `/charges/${(await paidCheckout(shop)).chargeId}/refund`, allowed: ['owner'], ok: 200, what: 'refunding payments' },
];

describeGuards('payments', ROUTES, () => ({ service, merchantId: shop.merchant.id, people }));

describe('payments', () => {
  it('searches checkouts and charges by id or email fragment, in pages; shows a checkout and its timeline without the operator\'s Temporal link', async () => {
    const own = await openShop(service);
    const older = await paidCheckout(own, 1000);
    const newer = await paidCheckout(own, 2000);
    const viewer = await member(service, own.merchant.id, 'developer');

    const page1 = await asMember(service, viewer, 'GET', '/checkouts?limit=1');
    expect([page1.status, page1.body.has_more, page1.body.results.map((c: { id: string }) => c.id)]).toEqual([200, true, [newer.checkoutId]]);
    const page2 = await asMember(service, viewer, 'GET', `/checkouts?limit=1&starting_after=${page1.body.next_starting_after}`);
    expect([page2.body.has_more, page2.body.results.map((c: { id: string }) => c.id)]).toEqual([false, [older.checkoutId]]);
    const byCharge = await asMember(service, viewer, 'GET', `/checkouts?q=${older.chargeId}`);
    expect(byCharge.body.results.map((c: { id: string }) => c.id)).toEqual([older.checkoutId]);
    const email = (await request(service.baseUrl, 'GET', `/api/v1/customers/${own.customerId}`, { token: own.merchant.api_key })).body.email as string;
    // Each checkout names its customer, as its charges do.
    expect(page1.body.results[0].customer).toEqual((await getCharge(service, own, newer.chargeId)).body.customer);
    expect(page1.body.results[0].customer).toMatchObject({ id: own.customerId, email });
    const byEmail = await asMember(service, viewer, 'GET', `/charges?q=${encodeURIComponent(email.slice(2, 12).toUpperCase())}`);
    expect(byEmail.body.results.map((c: { id: string }) => c.id)).toEqual([newer.chargeId, older.chargeId]);
    const charges = await asMember(service, viewer, 'GET', `/charges?checkout_id=${newer.checkoutId}`);
    expect(charges.body.results).toEqual([(await getCharge(service, own, newer.chargeId)).body]);

    const detail = await asMember(service, viewer, 'GET', `/checkouts/${older.checkoutId}`);
    expect(detail.body).toMatchObject({ id: older.checkoutId, charges: [{ id: older.chargeId }], blocked_evidence: null });
    expect(detail.body).not.toHaveProperty('workflow_url');
    const timeline = await asMember(service, viewer, 'GET', `/checkouts/${older.checkoutId}/timeline`);
    expect(timeline.body.checkout_id).toBe(older.checkoutId);
    expect(timeline.body.entries.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['checkout.created', 'charge.created']));
    expect(timeline.body).not.toHaveProperty('workflow_url');
  });

  it('refunds (owners) with the rules of the public refund, and records the person in the audit log', async () => {
    const { chargeId } = await paidCheckout(shop);
    const owner = people.owner!;
    expect((await asMember(service, owner, 'POST', `/charges/${chargeId}/refund`, { body: { amount_cents: 1 } })).status).toBe(422);
    const refunded = await asMember(service, owner, 'POST', `/charges/${chargeId}/refund`);
    expect([refunded.status, refunded.body.id, refunded.body.status]).toEqual([200, chargeId, 'refunded']);
    const again = await asMember(service, owner, 'POST', `/charges/${chargeId}/refund`);
    expect([again.status, again.body]).toEqual([422, errorWithHint]);
    const audit = await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id, action: 'charge.refunded', target: chargeId });
    expect(audit.map((e: { actor: string }) => e.actor)).toEqual([owner.user.id]);
    const refund = await service.deps.db('refunds').where({ charge_id: chargeId }).first();
    expect([refund.source, refund.requested_by]).toEqual(['dashboard', owner.email]);
    const timeline = await asMember(service, owner, 'GET', `/checkouts/${refunded.body.checkout_id}/timeline`);
    expect(timeline.body.entries.find((e: { kind: string }) => e.kind === 'refund').details).toMatchObject({ source: 'dashboard', requested_by: owner.email, status: 'succeeded' });
  });

  it("answers another merchant's checkouts and charges 404, like missing ones, and never lists them", async () => {
    const other = await openShop(service);
    const theirs = await paidCheckout(other);
    for (const [method, path] of [
      ['GET', `/checkouts/${theirs.checkoutId}`],
      ['GET', `/checkouts/${theirs.checkoutId}/timeline`],
      ['POST', `/charges/${theirs.chargeId}/refund`],
      ['GET', `/checkouts?starting_after=${theirs.checkoutId}`],
      ['GET', `/charges?starting_after=${theirs.chargeId}`],
      ['GET', '/checkouts/chk_missing'],
      ['POST', '/charges/ch_missing/refund'],
    ] as const) {
      const res = await asMember(service, people.owner!, method, path);
      expect([path, res.status, res.body]).toEqual([path, 404, errorWithHint]);
    }
    expect((await getCharge(service, other, theirs.chargeId)).body.status).toBe('succeeded');
    expect((await asMember(service, people.owner!, 'GET', `/checkouts?q=${theirs.checkoutId}`)).body.results).toEqual([]);
    expect((await asMember(service, people.owner!, 'GET', `/charges?q=${theirs.chargeId}`)).body.results).toEqual([]);
  });
});
