import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { attempt, CARD, createCheckout, getCharge, openShop, pausedForReview, waitFor, type Shop } from '../../support/fixtures';
import type { JsonResponse } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { asMember, member, type SignedIn } from '../../support/merchant-accounts';
import { asOperator, operator, type Operator } from '../../support/operators';

/**
 * Each audited action has one entrance, its feature's service: the merchant dashboard and the
 * admin API answer an unknown id and another merchant's id alike, and a success writes one audit
 * row naming the actor and the address they acted from.
 */

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

let lastAddress = 0;
const newAddress = () => `198.18.9.${++lastAddress}`;

let shop: Shop;
let other: Shop;
let owner: SignedIn;
let admin: Operator;
/** Another merchant, with a customer of its own (one test's restriction does not block another's payment). */
const otherShop = () => openShop(service, shopSettings());
const shopSettings = () => ({ webhook_url: receiver.url, enabled_events: ['customer.unrestricted'], review: { enabled: true, min_amount_cents: 500 } });

beforeAll(async () => {
  shop = await openShop(service, shopSettings());
  other = await openShop(service, shopSettings());
  owner = await member(service, shop.merchant.id, 'owner');
  admin = await operator(service, 'operator_admin');
});

const dashboard = (method: string, path: string, address = newAddress(), body?: unknown) => asMember(service, owner, method, path, { body, headers: { 'x-forwarded-for': address } });
const adminApi = (method: string, path: string, address = newAddress(), body?: unknown) => asOperator(service, admin, method, `/admin/v1${path}`, { body, headers: { 'x-forwarded-for': address } });

/** An answer as compared across entrances: its status and body, the id it names written as <id>. */
function answerOf(res: JsonResponse, id: string) {
  const { request_id: _request, ...body } = res.body as Record<string, unknown>;
  return [res.status, JSON.parse(JSON.stringify(body).replaceAll(id, '<id>'))];
}

async function paidCharge(owned: Shop): Promise<string> {
  const checkout = await createCheckout(service, owned, { type: 'deposit', fixed_amount_cents: 2500 });
  const id = (await attempt(service, checkout, { payment_method: CARD() })).body.charge.id as string;
  await waitFor(async () => (await getCharge(service, owned, id)).body.status === 'succeeded');
  return id;
}

async function restrictedCustomer(owned: Shop): Promise<string> {
  await service.deps.db('customers').where({ id: owned.customerId }).update({ restriction_reason: 'TEST_REASON', restricted_at: new Date() });
  return owned.customerId;
}

async function recordedEvent(owned: Shop): Promise<string> {
  const event = await service.deps.db('events').where({ merchant_id: owned.merchant.id, type: 'customer.unrestricted' }).orderBy('seq', 'desc').first('id');
  return event.id as string;
}

/** The merchant's audit rows written since `before` (their ids) for the action and target. */
async function auditRowsSince(before: string[], merchantId: string, action: string, target: string) {
  return service.deps.db('audit_log').where({ merchant_id: merchantId, action, target }).whereNotIn('id', before).select('actor', 'actor_email', 'client_address');
}

/** The audited actions that name a record, each as the merchant dashboard and the admin API call it. */
interface NamedAction {
  name: string;
  dashboard: (id: string) => [method: string, path: string];
  admin: (id: string) => [method: string, path: string];
  /** Another merchant's record of this kind. */
  foreign: () => Promise<string>;
  unknown: string;
}

const ACTIONS: NamedAction[] = [
  { name: 'revoke key', dashboard: (id) => ['DELETE', `/developers/api_keys/${id}`], admin: (id) => ['DELETE', `/merchants/${shop.merchant.id}/api_keys/${id}`], foreign: async () => other.merchant.api_key.slice(0, 12), unknown: 'key_unknown0' },
  { name: 'resend event', dashboard: (id) => ['POST', `/developers/events/${id}/resend`], admin: (id) => ['POST', `/events/${id}/resend`], foreign: async () => {
    const theirs = await otherShop();
    const lifted = await adminApi('POST', `/customers/${await restrictedCustomer(theirs)}/unrestrict`);
    expect(lifted.status).toBe(200);
    return recordedEvent(theirs);
  }, unknown: 'evt_unknown' },
  { name: 'lift restriction', dashboard: (id) => ['POST', `/customers/${id}/unrestrict`], admin: (id) => ['POST', `/customers/${id}/unrestrict`], foreign: async () => restrictedCustomer(await otherShop()), unknown: 'cus_unknown' },
  { name: 'refund', dashboard: (id) => ['POST', `/charges/${id}/refund`], admin: (id) => ['POST', `/charges/${id}/refund`], foreign: async () => paidCharge(await otherShop()), unknown: 'ch_unknown' },
  { name: 'approve review', dashboard: (id) => ['POST', `/reviews/${id}/approve`], admin: (id) => ['POST', `/reviews/${id}/approve`], foreign: async () => pausedForReview(service, await otherShop()), unknown: 'cpilr_unknown' },
  { name: 'decline review', dashboard: (id) => ['POST', `/reviews/${id}/decline`], admin: (id) => ['POST', `/reviews/${id}/decline`], foreign: async () => pausedForReview(service, await otherShop()), unknown: 'cpilr_unknown' },
];

describe('an unknown id and another merchant\'s id', () => {
  it.each(ACTIONS.map((action) => [action.name, action] as const))('%s: the merchant dashboard and the admin API answer the same not found', async (_name, action) => {
    const fromDashboard = await dashboard(...action.dashboard(action.unknown));
    const fromAdmin = await adminApi(...action.admin(action.unknown));
    expect(answerOf(fromDashboard, action.unknown)).toEqual([404, { error: expect.stringMatching(/ not found\.$/), hint: expect.any(String) }]);
    expect(answerOf(fromAdmin, action.unknown)).toEqual(answerOf(fromDashboard, action.unknown));

    // Another merchant's record is answered exactly as a missing one, and is left as it was.
    const foreign = await action.foreign();
    const before = await service.deps.db('audit_log').where({ merchant_id: other.merchant.id }).count<{ count: string }[]>('id as count');
    expect(answerOf(await dashboard(...action.dashboard(foreign)), foreign)).toEqual(answerOf(fromDashboard, action.unknown));
    const after = await service.deps.db('audit_log').where({ merchant_id: other.merchant.id }).count<{ count: string }[]>('id as count');
    expect(after[0]!.count).toBe(before[0]!.count);
  });

  it("revoke key: the admin API answers another merchant's key under this merchant as the dashboard does", async () => {
    const foreign = other.merchant.api_key.slice(0, 12);
    const fromAdmin = await adminApi('DELETE', `/merchants/${shop.merchant.id}/api_keys/${foreign}`);
    const fromDashboard = await dashboard('DELETE', `/developers/api_keys/${foreign}`);
    expect(answerOf(fromAdmin, foreign)).toEqual(answerOf(fromDashboard, foreign));
    expect(fromAdmin.status).toBe(404);
  });

  it('issue key, roll secret and change settings: an unknown merchant is the admin API\'s not found', async () => {
    for (const [method, path, body] of [
      ['POST', '/merchants/mer_unknown/api_keys', undefined],
      ['POST', '/merchants/mer_unknown/webhook_secret/roll', { overlap_seconds: 60, force: true }],
      ['PATCH', '/merchants/mer_unknown/settings', { webhook_url: null }],
    ] as const) {
      expect([path, ...answerOf(await adminApi(method, path, newAddress(), body), 'mer_unknown')]).toEqual([path, 404, { error: 'Merchant not found.', hint: expect.any(String) }]);
    }
  });
});

/** A successful action through each entrance: [audit action, target, call]. */
type Success = (address: string) => Promise<{ res: JsonResponse; action: string; target: string; status: number }>;

const SUCCESSES: Array<[name: string, dashboardCall: Success, adminCall: Success]> = [
  [
    'issue key',
    async (address) => {
      const res = await dashboard('POST', '/developers/api_keys', address);
      return { res, action: 'api_key.issued', target: res.body.key_prefix, status: 201 };
    },
    async (address) => {
      const res = await adminApi('POST', `/merchants/${shop.merchant.id}/api_keys`, address);
      return { res, action: 'api_key.issued', target: res.body.key_prefix, status: 201 };
    },
  ],
  [
    'revoke key',
    async (address) => {
      const prefix = (await dashboard('POST', '/developers/api_keys')).body.key_prefix as string;
      return { res: await dashboard('DELETE', `/developers/api_keys/${prefix}`, address), action: 'api_key.revoked', target: prefix, status: 200 };
    },
    async (address) => {
      const prefix = (await dashboard('POST', '/developers/api_keys')).body.key_prefix as string;
      return { res: await adminApi('DELETE', `/merchants/${shop.merchant.id}/api_keys/${prefix}`, address), action: 'api_key.revoked', target: prefix, status: 200 };
    },
  ],
  [
    'roll signing secret',
    async (address) => ({ res: await dashboard('POST', '/developers/webhook/signing_secret/roll', address, { overlap_seconds: 60, force: true }), action: 'signing_secret.rolled', target: shop.merchant.id, status: 201 }),
    async (address) => ({ res: await adminApi('POST', `/merchants/${shop.merchant.id}/webhook_secret/roll`, address, { overlap_seconds: 60, force: true }), action: 'signing_secret.rolled', target: shop.merchant.id, status: 201 }),
  ],
  [
    'change settings',
    async (address) => ({ res: await dashboard('PUT', '/developers/enabled_events', address, { enabled_events: ['customer.unrestricted', 'checkout.refunded'] }), action: 'enabled_events.changed', target: shop.merchant.id, status: 200 }),
    async (address) => ({ res: await adminApi('PATCH', `/merchants/${shop.merchant.id}/settings`, address, { enabled_events: ['customer.unrestricted'] }), action: 'enabled_events.changed', target: shop.merchant.id, status: 200 }),
  ],
  [
    'lift restriction',
    async (address) => ({ res: await dashboard('POST', `/customers/${await restrictedCustomer(shop)}/unrestrict`, address), action: 'customer.unrestricted', target: shop.customerId, status: 200 }),
    async (address) => ({ res: await adminApi('POST', `/customers/${await restrictedCustomer(shop)}/unrestrict`, address), action: 'customer.unrestricted', target: shop.customerId, status: 200 }),
  ],
  [
    'resend event',
    async (address) => {
      const id = await recordedEvent(shop);
      return { res: await dashboard('POST', `/developers/events/${id}/resend`, address), action: 'event.resent', target: id, status: 202 };
    },
    async (address) => {
      const id = await recordedEvent(shop);
      return { res: await adminApi('POST', `/events/${id}/resend`, address), action: 'event.resent', target: id, status: 202 };
    },
  ],
  [
    'refund',
    async (address) => {
      const id = await paidCharge(shop);
      return { res: await dashboard('POST', `/charges/${id}/refund`, address), action: 'charge.refunded', target: id, status: 200 };
    },
    async (address) => {
      const id = await paidCharge(shop);
      return { res: await adminApi('POST', `/charges/${id}/refund`, address), action: 'charge.refunded', target: id, status: 200 };
    },
  ],
  [
    'decide review',
    async (address) => {
      const id = await pausedForReview(service, shop);
      return { res: await dashboard('POST', `/reviews/${id}/approve`, address), action: 'review.approved', target: id, status: 200 };
    },
    async (address) => {
      const id = await pausedForReview(service, shop);
      return { res: await adminApi('POST', `/reviews/${id}/decline`, address), action: 'review.declined', target: id, status: 200 };
    },
  ],
];

describe('a successful action', () => {
  it.each(SUCCESSES)('%s: one audit row naming the person (dashboard) or the operator (admin API), with the client address', async (_name, dashboardCall, adminCall) => {
    for (const [call, actor, email] of [
      [dashboardCall, owner.user.id, null],
      [adminCall, admin.user.id, admin.email],
    ] as const) {
      const address = newAddress();
      const before = (await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id }).pluck('id')) as string[];
      const { res, action, target, status } = await call(address);
      expect([res.status, res.text.slice(0, 200)]).toEqual([status, expect.any(String)]);
      expect(await auditRowsSince(before, shop.merchant.id, action, target)).toEqual([{ actor, actor_email: email, client_address: address }]);
    }
  });

  it('a refund and a decision name the person as requester and decider, the same way from either dashboard', async () => {
    const review = await pausedForReview(service, shop);
    const decided = await dashboard('POST', `/reviews/${review}/decline`);
    expect([decided.status, decided.body.decided_by]).toEqual([200, owner.email]);
    const charge = await paidCharge(shop);
    expect((await adminApi('POST', `/charges/${charge}/refund`)).status).toBe(200);
    expect(await service.deps.db('refunds').where({ charge_id: charge }).first('requested_by')).toEqual({ requested_by: admin.email });
  });
});
