import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { openShop, pausedForReview, type Shop } from '../../support/fixtures';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { ALL_ROLES, asMember, errorWithHint, describeGuards, member, type GuardedRoute, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const DECIDERS = ['owner', 'reviewer'];
const reviewedShop = () => openShop(service, { webhook_url: receiver.url, review: { enabled: true, min_amount_cents: 500 } });

const pendingReview = (shop: Shop) => pausedForReview(service, shop);

let shop: Shop;
let people: Record<string, SignedIn>;
beforeAll(async () => {
  shop = await reviewedShop();
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
});

const ROUTES: GuardedRoute[] = [
  { name: 'GET /reviews', method: 'GET', path: async () => '/reviews', allowed: ALL_ROLES, ok: 200, what: '' },
  { name: 'POST /reviews/{id}/approve', method: 'POST', path: async () => `/reviews/${await pendingReview(shop)}/approve`, allowed: DECIDERS, ok: 200, what: 'deciding reviews' },
  { name: 'POST /reviews/{id}/decline', method: 'POST', path: async () => `/reviews/${await pendingReview(shop)}/decline`, allowed: DECIDERS, ok: 200, what: 'deciding reviews' },
];

describeGuards('reviews', ROUTES, () => ({ service, merchantId: shop.merchant.id, people }));

describe('the review queue and decisions', () => {
  it('lists the queue oldest first in pages, with the customer, payment method and evidence; a decision records the person', async () => {
    const own = await reviewedShop();
    const reviewer = await member(service, own.merchant.id, 'reviewer');
    const first = await pendingReview(own);
    const second = await pendingReview(own);
    const page1 = await asMember(service, reviewer, 'GET', '/reviews?status=pending&limit=1');
    expect([page1.status, page1.body.has_more, page1.body.results.map((r: { id: string }) => r.id)]).toEqual([200, true, [first]]);
    expect(page1.body.results[0]).toMatchObject({ customer: { id: own.customerId, first_name: 'Ada' }, payment_method: { payment_type: 'card' }, evidence: { rule: { name: 'review', min_amount_cents: 500 }, amount_cents: 1500 } });
    const page2 = await asMember(service, reviewer, 'GET', `/reviews?status=pending&limit=1&starting_after=${page1.body.next_starting_after}`);
    expect(page2.body.results.map((r: { id: string }) => r.id)).toEqual([second]);

    const approved = await asMember(service, reviewer, 'POST', `/reviews/${first}/approve`);
    expect([approved.status, approved.body]).toMatchObject([200, { id: first, status: 'approved', decided_by: reviewer.email }]);
    expect((await asMember(service, reviewer, 'POST', `/reviews/${first}/decline`)).status).toBe(422);
    const declined = await asMember(service, reviewer, 'POST', `/reviews/${second}/decline`);
    expect([declined.status, declined.body.status, declined.body.decided_by]).toEqual([200, 'declined', reviewer.email]);
    const newest = await asMember(service, reviewer, 'GET', '/reviews?order=newest&limit=10');
    expect(newest.body.results.map((r: { id: string; decided_by: string }) => [r.id, r.decided_by])).toEqual([[second, reviewer.email], [first, reviewer.email]]);

    const audit = await service.deps.db('audit_log').where({ merchant_id: own.merchant.id, actor: reviewer.user.id }).whereIn('action', ['review.approved', 'review.declined']).orderBy('created_at');
    expect(audit.map((e: { action: string; target: string }) => [e.action, e.target])).toEqual([['review.approved', first], ['review.declined', second]]);
  });

  it("writes one audit entry per decision, in the decision's own transaction; a refused or repeated decision writes none; the admin token's names the token", async () => {
    const own = await reviewedShop();
    const reviewer = await member(service, own.merchant.id, 'reviewer');
    const db = service.deps.db;
    const entries = (target: string) => db('audit_log').where({ merchant_id: own.merchant.id, target }).select('actor', 'action', 'details', 'created_at');
    const refused = await pendingReview(own);
    await db('customers').where({ id: own.customerId }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
    const refusal = await asMember(service, reviewer, 'POST', `/reviews/${refused}/approve`);
    expect([refusal.status, refusal.body.error]).toEqual([422, 'Approval refused.']);
    expect(await entries(refused)).toEqual([]);

    await db('customers').where({ id: own.customerId }).update({ restriction_reason: null, restricted_at: null });
    expect((await asMember(service, reviewer, 'POST', `/reviews/${refused}/approve`)).status).toBe(200);
    expect((await asMember(service, reviewer, 'POST', `/reviews/${refused}/decline`)).status).toBe(422);
    const review = await db('reviews').where({ id: refused }).first();
    const written = await entries(refused);
    expect(written).toEqual([{ actor: reviewer.user.id, action: 'review.approved', details: { checkout_id: review.checkout_id, amount_cents: 1500 }, created_at: expect.any(Date) }]);
    // The transaction's clock: an entry written in a later transaction would carry a later time.
    expect(written[0].created_at.toISOString()).toBe(review.decided_at.toISOString());

    const declined = await pendingReview(own);
    expect((await asMember(service, reviewer, 'POST', `/reviews/${declined}/decline`)).status).toBe(200);
    expect((await entries(declined)).map((e: { action: string }) => e.action)).toEqual(['review.declined']);

    const operators = await pendingReview(own);
    expect((await request(service.baseUrl, 'POST', `/admin/v1/reviews/${operators}/approve`, { token: service.adminToken })).status).toBe(200);
    const tokenEntries = await entries(operators);
    expect(tokenEntries.map((e: { actor: string; action: string }) => [e.actor, e.action])).toEqual([['admin', 'review.approved']]);
    expect(tokenEntries[0].created_at).toEqual((await db('reviews').where({ id: operators }).first()).decided_at);
  });

  it("answers another merchant's reviews 404, like missing ones, and lists only the session's merchant's", async () => {
    const other = await reviewedShop();
    const theirs = await pendingReview(other);
    for (const decision of ['approve', 'decline']) {
      const res = await asMember(service, people.reviewer!, 'POST', `/reviews/${theirs}/${decision}`);
      expect([res.status, res.body]).toEqual([404, { ...errorWithHint, error: 'Review not found.' }]);
      expect((await asMember(service, people.reviewer!, 'POST', `/reviews/cpilr_missing/${decision}`)).status).toBe(404);
    }
    expect((await asMember(service, people.reviewer!, 'GET', `/reviews?starting_after=${theirs}`)).status).toBe(404);
    const listed = await asMember(service, people.reviewer!, 'GET', '/reviews?limit=100');
    expect(listed.body.results.map((r: { id: string }) => r.id)).not.toContain(theirs);
    expect((await service.deps.db('reviews').where({ id: theirs }).first()).status).toBe('pending');
  });
});
