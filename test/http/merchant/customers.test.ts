import { startService, type Service } from '../../support/harness';
import { openShop, type Shop } from '../../support/fixtures';
import { request, uniqueCustomer } from '../../support/http';
import { ALL_ROLES, asMember, errorWithHint, describeGuards, member, type GuardedRoute, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
});
afterAll(async () => {
  await service.stop();
});

const REASON = 'KYC_DOES_NOT_MATCH_PROFILE_NAME';
const EVIDENCE = { rule: 'kyc_name_match', kyc_record: { first_name: 'Grace', last_name: 'Lovelace' } };

/** A new customer of the shop, restricted as a failed gate check leaves one (reason, time and evidence). */
async function restrictedCustomer(shop: Shop, overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: uniqueCustomer(overrides) });
  if (created.status !== 201) throw new Error(`customer: ${created.text}`);
  await service.deps.db('customers').where({ id: created.body.id }).update({ restriction_reason: REASON, restricted_at: new Date(), restriction_evidence: JSON.stringify(EVIDENCE) });
  return created.body.id as string;
}

let shop: Shop;
let people: Record<string, SignedIn>;
beforeAll(async () => {
  shop = await openShop(service);
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
});

const ROUTES: GuardedRoute[] = [
  { name: 'GET /customers', method: 'GET', path: () => '/customers?restricted=true', allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'POST /customers/{id}/unrestrict', method: 'POST', path: async () => `/customers/${await restrictedCustomer(shop)}/unrestrict`, allowed: ['owner', 'reviewer'], ok: 200, what: 'lifting restrictions' },
];

describeGuards('customers', ROUTES, () => ({ service, merchantId: shop.merchant.id, people }));

describe('customers', () => {
  it('searches by id or a fragment of email or name, in pages, with restrictions and their evidence', async () => {
    const own = await openShop(service);
    const viewer = await member(service, own.merchant.id, 'viewer');
    const marker = `zq${Date.now()}`;
    const first = await restrictedCustomer(own, { email: `${marker}.one@example.com` });
    const second = (await request(service.baseUrl, 'POST', '/api/v1/customers', { token: own.merchant.api_key, body: uniqueCustomer({ email: `${marker}.two@example.com` }) })).body.id;

    const page1 = await asMember(service, viewer, 'GET', `/customers?q=${marker.toUpperCase()}&limit=1`);
    expect([page1.status, page1.body.has_more, page1.body.results.map((c: { id: string }) => c.id)]).toEqual([200, true, [second]]);
    const page2 = await asMember(service, viewer, 'GET', `/customers?q=${marker}&limit=1&starting_after=${page1.body.next_starting_after}`);
    expect([page2.body.has_more, page2.body.results.map((c: { id: string }) => c.id)]).toEqual([false, [first]]);
    expect(page2.body.results[0]).toMatchObject({ restricted: true, restriction_reason: REASON, restricted_at: expect.any(String), restriction_evidence: EVIDENCE });

    const restricted = await asMember(service, viewer, 'GET', '/customers?restricted=true');
    expect(restricted.body.results.map((c: { id: string }) => c.id)).toEqual([first]);
    const byId = await asMember(service, viewer, 'GET', `/customers?q=${second}`);
    expect(byId.body.results.map((c: { id: string }) => c.id)).toEqual([second]);
    expect((await asMember(service, viewer, 'GET', '/customers?restricted=maybe')).status).toBe(422);
  });

  it('lifts a restriction, recording the person in the audit log; a customer not restricted is 422', async () => {
    const customer = await restrictedCustomer(shop);
    const reviewer = people.reviewer!;
    const lifted = await asMember(service, reviewer, 'POST', `/customers/${customer}/unrestrict`);
    expect([lifted.status, lifted.body]).toEqual([200, { id: customer, restricted: false, restriction_reason: null }]);
    const again = await asMember(service, reviewer, 'POST', `/customers/${customer}/unrestrict`);
    expect([again.status, again.body]).toEqual([422, { ...errorWithHint, error: 'Customer is not restricted.' }]);
    const audit = await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id, action: 'customer.unrestricted', target: customer });
    expect(audit.map((e: { actor: string; details: unknown }) => [e.actor, e.details])).toEqual([[reviewer.user.id, { reason_code: REASON }]]);
  });

  it("answers another merchant's customers 404, like missing ones, and never lists them", async () => {
    const other = await openShop(service);
    const theirs = await restrictedCustomer(other);
    const res = await asMember(service, people.owner!, 'POST', `/customers/${theirs}/unrestrict`);
    expect([res.status, res.body]).toEqual([404, { ...errorWithHint, error: 'Customer not found.' }]);
    expect((await asMember(service, people.owner!, 'POST', '/customers/cus_missing/unrestrict')).status).toBe(404);
    expect((await service.deps.db('customers').where({ id: theirs }).first()).restriction_reason).not.toBeNull();
    expect((await asMember(service, people.owner!, 'GET', `/customers?starting_after=${theirs}`)).status).toBe(404);
    expect((await asMember(service, people.owner!, 'GET', `/customers?q=${theirs}`)).body.results).toEqual([]);
  });
});
