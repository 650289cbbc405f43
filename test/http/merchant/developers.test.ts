import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { openShop, waitFor, type Shop } from '../../support/fixtures';
import { request } from '../../support/http';
import type { WebhookReceiver } from '../../support/receiver';
import { currentTotpCode } from '../../../src/identity/secrets';
import { enrolledMember, letNextCodeCome } from '../../support/authenticators';
import { ALL_ROLES, asMember, errorWithHint, describeGuards, member, walkPages, type GuardedRoute, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
let receiver: WebhookReceiver;
useServiceWithReceiver((env) => ({ service, receiver } = env));

const WRITERS = ['owner', 'developer'];

/** Records a customer.unrestricted event for the shop's customer (restricted, then lifted by the operator). */
async function recordEvent(shop: Shop): Promise<string> {
  await service.deps.db('customers').where({ id: shop.customerId }).update({ restriction_reason: 'TEST_REASON', restricted_at: new Date() });
  const lifted = await request(service.baseUrl, 'POST', `/admin/v1/customers/${shop.customerId}/unrestrict`, { token: service.adminToken });
  if (lifted.status !== 200) throw new Error(`unrestrict: ${lifted.text}`);
  const event = await service.deps.db('events').where({ customer_id: shop.customerId, type: 'customer.unrestricted' }).orderBy('seq', 'desc').first();
  return event.id as string;
}

async function auditActions(merchantId: string): Promise<Array<{ actor: string; action: string; target: string | null; details: Record<string, unknown> }>> {
  return service.deps.db('audit_log').where({ merchant_id: merchantId }).orderBy('created_at', 'desc').select('actor', 'action', 'target', 'details');
}

let shop: Shop;
let people: Record<string, SignedIn>;
let eventId: string;
beforeAll(async () => {
  shop = await openShop(service, { webhook_url: receiver.url, enabled_events: ['customer.unrestricted'], checkout_flows: ['deposit', 'balance_withdrawal'] });
  people = {};
  for (const role of ALL_ROLES) people[role] = await member(service, shop.merchant.id, role);
  eventId = await recordEvent(shop);
});


/** Every Developers route: who may call it (reads: every role; changes: owners and developers). */
const ROUTES: GuardedRoute[] = [
  { name: 'GET /developers/api_keys', method: 'GET', path: () => '/developers/api_keys', allowed: ALL_ROLES, ok: 200, what: 'the Developers section' },
  { name: 'POST /developers/api_keys', method: 'POST', path: () => '/developers/api_keys', allowed: WRITERS, ok: 201, what: 'the Developers section' },
  {
    name: 'DELETE /developers/api_keys/{keyPrefix}',
    method: 'DELETE',
    path: async () => `/developers/api_keys/${(await asMember(service, people.owner!, 'POST', '/developers/api_keys')).body.key_prefix}`,
    allowed: WRITERS,
    ok: 200,
    what: 'the Developers section',
  },
  { name: 'GET /developers/webhook', method: 'GET', path: () => '/developers/webhook', allowed: ALL_ROLES, ok: 200, what: 'the Developers section' },
  {
    name: 'PUT /developers/webhook',
    method: 'PUT',
    path: () => '/developers/webhook',
    // The receiver's URL is known once the service runs.
    get body() {
      return { webhook_url: receiver.url };
    },
    allowed: WRITERS,
    ok: 200,
    what: 'the Developers section',
  },
  { name: 'POST /developers/webhook/signing_secret/roll', method: 'POST', path: () => '/developers/webhook/signing_secret/roll', body: { overlap_seconds: 60, force: true }, allowed: WRITERS, ok: 201, what: 'the Developers section' },
  { name: 'GET /developers/enabled_events', method: 'GET', path: () => '/developers/enabled_events', allowed: ALL_ROLES, ok: 200, what: 'the Developers section' },
  { name: 'PUT /developers/enabled_events', method: 'PUT', path: () => '/developers/enabled_events', body: { enabled_events: ['customer.unrestricted'] }, allowed: WRITERS, ok: 200, what: 'the Developers section' },
  { name: 'GET /developers/events', method: 'GET', path: () => '/developers/events', allowed: ALL_ROLES, ok: 200, what: 'the Developers section' },
  { name: 'GET /developers/events/{id}', method: 'GET', path: () => `/developers/events/${eventId}`, allowed: ALL_ROLES, ok: 200, what: 'the Developers section' },
  { name: 'POST /developers/events/{id}/resend', method: 'POST', path: () => `/developers/events/${eventId}/resend`, allowed: WRITERS, ok: 202, what: 'the Developers section' },
];

describeGuards('the Developers section', ROUTES, () => ({ service, merchantId: shop.merchant.id, people }));

describe("another merchant's records", () => {
  it('are 404 like missing ones, and lists show only the session\'s merchant', async () => {
    const other = await openShop(service, { webhook_url: receiver.url, enabled_events: ['customer.unrestricted'] });
    const otherOwner = await member(service, other.merchant.id, 'owner');
    const otherEvent = await recordEvent(other);
    const otherKey = other.merchant.api_key.slice(0, 12);
    for (const [method, path] of [
      ['DELETE', `/developers/api_keys/${otherKey}`],
      ['GET', `/developers/events/${otherEvent}`],
      ['POST', `/developers/events/${otherEvent}/resend`],
    ] as const) {
      const res = await asMember(service, people.owner!, method, path);
      expect([path, res.status, res.body]).toEqual([path, 404, errorWithHint]);
    }
    expect((await asMember(service, people.owner!, 'DELETE', '/developers/api_keys/key_missing0')).status).toBe(404);
    expect((await asMember(service, people.owner!, 'GET', `/developers/events?starting_after=${otherEvent}`)).status).toBe(404);
    const keys = await asMember(service, people.owner!, 'GET', '/developers/api_keys');
    expect(keys.body.results.map((k: { key_prefix: string }) => k.key_prefix)).not.toContain(otherKey);
    const events = await asMember(service, people.owner!, 'GET', '/developers/events?limit=100');
    expect(events.body.results.map((e: { id: string }) => e.id)).not.toContain(otherEvent);
    // Their own key is still active.
    const theirs = await asMember(service, otherOwner, 'GET', '/developers/api_keys');
    expect(theirs.body.results.find((k: { key_prefix: string }) => k.key_prefix === otherKey).revoked_at).toBeNull();
  });
});

describe('what the Developers section does', () => {
  it("pages the API keys newest first, the cursor a key's prefix; another account's prefix is 404", async () => {
    const own = await openShop(service);
    const owner = await member(service, own.merchant.id, 'owner');
    const issued: string[] = [];
    for (let i = 0; i < 3; i += 1) issued.push((await asMember(service, owner, 'POST', '/developers/api_keys')).body.key_prefix);
    const listed = await walkPages(service, owner, '/developers/api_keys', 2, 'key_prefix');
    // The three issued here, newest first, then the key the merchant was onboarded with.
    expect(listed).toHaveLength(4);
    expect(listed.slice(0, 3)).toEqual([...issued].reverse());
    const theirs = (await asMember(service, people.owner!, 'GET', '/developers/api_keys?limit=1')).body.results[0].key_prefix;
    const foreign = await asMember(service, owner, 'GET', `/developers/api_keys?starting_after=${theirs}`);
    expect([foreign.status, foreign.body]).toEqual([404, { ...errorWithHint, error: 'API key not found.' }]);
  });

  it('issues a key (secrets shown once, only the prefix listed) and revokes it: the key stops working; each change is audited with the person', async () => {
    const dev = people.developer!;
    const issued = await asMember(service, dev, 'POST', '/developers/api_keys');
    expect([issued.status, issued.body]).toEqual([201, { api_key: expect.stringMatching(/^key_/), client_secret: expect.any(String), key_prefix: issued.body.api_key.slice(0, 12) }]);
    const listed = await asMember(service, people.viewer!, 'GET', '/developers/api_keys');
    expect(listed.body.results).toContainEqual({ key_prefix: issued.body.key_prefix, created_at: expect.any(String), revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.api_key);
    expect((await request(service.baseUrl, 'GET', '/api/v1/checkouts', { token: issued.body.api_key })).status).toBe(200);

    const revoked = await asMember(service, dev, 'DELETE', `/developers/api_keys/${issued.body.key_prefix}`);
    expect([revoked.status, revoked.body]).toEqual([200, { key_prefix: issued.body.key_prefix, revoked: true }]);
    expect((await request(service.baseUrl, 'GET', '/api/v1/checkouts', { token: issued.body.api_key })).status).toBe(422);
    expect((await asMember(service, dev, 'DELETE', `/developers/api_keys/${issued.body.key_prefix}`)).status).toBe(404);

    const audit = await auditActions(shop.merchant.id);
    expect(audit).toEqual(expect.arrayContaining([
      { actor: dev.user.id, action: 'api_key.issued', target: issued.body.key_prefix, details: {} },
      { actor: dev.user.id, action: 'api_key.revoked', target: issued.body.key_prefix, details: {} },
    ]));
  });

  it('sets the webhook URL (refusing a bad one 422) and rolls the signing secret with an overlap it shows', async () => {
    const owner = people.owner!;
    const bad = await asMember(service, owner, 'PUT', '/developers/webhook', { body: { webhook_url: 'not a url' } });
    expect([bad.status, bad.body]).toEqual([422, errorWithHint]);
    const moved = await asMember(service, owner, 'PUT', '/developers/webhook', { body: { webhook_url: `${receiver.url}/moved` } });
    const set = await asMember(service, owner, 'PUT', '/developers/webhook', { body: { webhook_url: receiver.url } });
    expect([moved.status, set.status, set.body.webhook_url]).toEqual([200, 200, receiver.url]);

    const rolled = await asMember(service, owner, 'POST', '/developers/webhook/signing_secret/roll', { body: { overlap_seconds: 3600, force: true } });
    expect([rolled.status, rolled.body]).toEqual([201, { webhook_signing_secret: expect.stringMatching(/^wss_/), previous_webhook_secret_expires_at: expect.any(String) }]);
    const minutes = (Date.parse(rolled.body.previous_webhook_secret_expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(59);
    const again = await asMember(service, owner, 'POST', '/developers/webhook/signing_secret/roll', { body: {} });
    expect([again.status, again.body]).toEqual([422, errorWithHint]);
    // With an Idempotency-Key, a retried roll answers the first roll's secret and rolls once.
    const key = { 'idempotency-key': `roll-${Date.now()}` };
    const keyed = await asMember(service, owner, 'POST', '/developers/webhook/signing_secret/roll', { body: { overlap_seconds: 3600, force: true }, headers: key });
    const retried = await asMember(service, owner, 'POST', '/developers/webhook/signing_secret/roll', { body: { overlap_seconds: 3600, force: true }, headers: key });
    expect([keyed.status, retried.status, retried.body]).toEqual([201, 201, keyed.body]);
    const rolls = (await auditActions(shop.merchant.id)).filter((e) => e.action === 'signing_secret.rolled');
    const shown = await asMember(service, people.viewer!, 'GET', '/developers/webhook');
    expect(shown.body).toEqual({ webhook_url: receiver.url, previous_webhook_secret_expires_at: keyed.body.previous_webhook_secret_expires_at });
    expect(JSON.stringify(shown.body)).not.toContain(keyed.body.webhook_signing_secret);

    const audit = await auditActions(shop.merchant.id);
    expect(audit).toContainEqual({ actor: owner.user.id, action: 'signing_secret.rolled', target: shop.merchant.id, details: { previous_expires_at: rolled.body.previous_webhook_secret_expires_at, forced: true } });
    expect(rolls.filter((e) => e.details.previous_expires_at === keyed.body.previous_webhook_secret_expires_at)).toHaveLength(1);
    const urlChanges = audit.filter((e) => e.action === 'webhook_url.changed').map((e) => e.details);
    expect(urlChanges).toEqual(expect.arrayContaining([
      { changes: { webhook_url: { from: receiver.url, to: `${receiver.url}/moved` } } },
      { changes: { webhook_url: { from: `${receiver.url}/moved`, to: receiver.url } } },
    ]));
  });

  it('lists the enabled events grouped as the catalog, with the withdrawal note beside checkout.failed, and sets them', async () => {
    const res = await asMember(service, people.viewer!, 'GET', '/developers/enabled_events');
    expect(res.status).toBe(200);
    expect(res.body.always_on_events).toEqual(['checkout.succeeded', 'checkout.hold', 'checkout.release_hold', 'checkout.returned']);
    const events = res.body.groups.flatMap((g: { events: unknown[] }) => g.events);
    expect(events.find((e: { type: string }) => e.type === 'checkout.failed')).toEqual({ type: 'checkout.failed', enabled: false, note: expect.stringContaining('withdrawals') });
    expect(events.find((e: { type: string }) => e.type === 'customer.unrestricted')).toEqual({ type: 'customer.unrestricted', enabled: true, note: null });
    expect(res.body.groups.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(['Charge events', 'Reviews', 'Customers']));

    const set = await asMember(service, people.developer!, 'PUT', '/developers/enabled_events', { body: { enabled_events: ['checkout.failed', 'customer.unrestricted'] } });
    expect(set.status).toBe(200);
    const after = set.body.groups.flatMap((g: { events: unknown[] }) => g.events);
    expect(after.filter((e: { enabled: boolean }) => e.enabled).map((e: { type: string }) => e.type).sort()).toEqual(['checkout.failed', 'customer.unrestricted']);
    const changed = (await auditActions(shop.merchant.id)).find((e) => e.action === 'enabled_events.changed');
    expect(changed?.details).toEqual({ changes: { enabled_events: { from: ['customer.unrestricted'], to: expect.arrayContaining(['checkout.failed', 'customer.unrestricted']) } } });
    expect((await asMember(service, people.developer!, 'PUT', '/developers/enabled_events', { body: { enabled_events: ['no.such'] } })).status).toBe(422);

    const depositsOnly = await openShop(service, { checkout_flows: ['deposit'] });
    const theirs = await asMember(service, await member(service, depositsOnly.merchant.id, 'viewer'), 'GET', '/developers/enabled_events');
    const failed = theirs.body.groups.flatMap((g: { events: Array<{ type: string }> }) => g.events).find((e: { type: string }) => e.type === 'checkout.failed');
    expect(failed.note).toBeNull();
  });

  it('pages the event log with every delivery attempt, and resends an event as a new series (audited)', async () => {
    expect((await asMember(service, people.developer!, 'PUT', '/developers/webhook', { body: { webhook_url: receiver.url } })).status).toBe(200);
    const second = await recordEvent(shop);
    await waitFor(async () => (await service.deps.db('events').where({ id: second }).first()).delivery_status === 'delivered');
    const first = await asMember(service, people.viewer!, 'GET', '/developers/events?limit=1');
    expect([first.status, first.body.results.length, first.body.has_more]).toEqual([200, 1, true]);
    expect(first.body.results[0].id).toBe(second);
    expect(first.body.results[0].attempts.length).toBeGreaterThan(0);
    const next = await asMember(service, people.viewer!, 'GET', `/developers/events?limit=1&starting_after=${first.body.next_starting_after}`);
    expect(next.body.results[0].id).not.toBe(second);

    const resent = await asMember(service, people.developer!, 'POST', `/developers/events/${second}/resend`);
    expect([resent.status, resent.body]).toEqual([202, { id: second, resent: true, series: expect.any(Number) }]);
    const audit = await auditActions(shop.merchant.id);
    expect(audit).toContainEqual({ actor: people.developer!.user.id, action: 'event.resent', target: second, details: { series: resent.body.series } });

    // One entry per resend, committed with the series it records (the same transaction's clock).
    const again = await asMember(service, people.developer!, 'POST', `/developers/events/${second}/resend`);
    expect(again.body.series).toBe(resent.body.series + 1);
    const entries = await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id, action: 'event.resent', target: second }).orderBy('created_at');
    expect(entries.map((e: { details: { series: number } }) => e.details.series)).toEqual([resent.body.series, again.body.series]);
    const series = await service.deps.db('event_delivery_series').where({ event_id: second }).orderBy('series');
    expect(entries.map((e: { created_at: Date }) => e.created_at.toISOString())).toEqual(series.map((row: { requested_at: Date }) => row.requested_at.toISOString()));
    // A refused resend (the merchant has no webhook_url) writes no entry.
    expect((await asMember(service, people.developer!, 'PUT', '/developers/webhook', { body: { webhook_url: null } })).status).toBe(200);
    expect((await asMember(service, people.developer!, 'POST', `/developers/events/${second}/resend`)).status).toBe(422);
    expect(await service.deps.db('audit_log').where({ merchant_id: shop.merchant.id, action: 'event.resent', target: second })).toHaveLength(2);
  });
});

describe('revealing the signing secret against a fresh authenticator code', () => {
  const REVEAL = '/developers/webhook/signing_secret/reveal';
  const revealed = (merchantId: string) => service.deps.db('audit_log').where({ merchant_id: merchantId, action: 'signing_secret.revealed' }).select('actor', 'target', 'client_address', 'details');

  it('answers the secret a roll answered, no-store, for a code or a recovery code; each sight audited with the person and address', async () => {
    const own = await openShop(service);
    const developer = await enrolledMember(service, own.merchant.id, 'developer');
    const rolled = await asMember(service, developer, 'POST', '/developers/webhook/signing_secret/roll', { body: { overlap_seconds: 3600, force: true } });
    expect(rolled.status).toBe(201);

    await letNextCodeCome(service, developer.user.id);
    const code = currentTotpCode(developer.secret);
    const shown = await asMember(service, developer, 'POST', REVEAL, { body: { totp_code: code }, headers: { 'x-forwarded-for': '203.0.113.41' } });
    expect([shown.status, shown.headers.get('cache-control'), shown.body]).toEqual([
      200,
      'no-store',
      { webhook_secret: rolled.body.webhook_signing_secret, previous_webhook_secret_expires_at: rolled.body.previous_webhook_secret_expires_at },
    ]);
    // A code works once: the same code again is refused.
    const replayed = await asMember(service, developer, 'POST', REVEAL, { body: { totp_code: code } });
    expect([replayed.status, replayed.body.error]).toEqual([422, 'Authenticator code already used.']);
    const byRecoveryCode = await asMember(service, developer, 'POST', REVEAL, { body: { recovery_code: developer.recoveryCodes[0] } });
    expect([byRecoveryCode.status, byRecoveryCode.body.webhook_secret]).toEqual([200, rolled.body.webhook_signing_secret]);

    expect(await revealed(own.merchant.id)).toEqual([
      { actor: developer.user.id, target: own.merchant.id, client_address: '203.0.113.41', details: {} },
      { actor: developer.user.id, target: own.merchant.id, client_address: expect.any(String), details: {} },
    ]);
  });

  it('refuses a missing or wrong code 422, a person without an authenticator 422 pointing at the Security page, roles below developers 403; nothing shown or audited', async () => {
    const own = await openShop(service);
    const owner = await enrolledMember(service, own.merchant.id, 'owner');
    const missing = await asMember(service, owner, 'POST', REVEAL, { body: {} });
    expect([missing.status, missing.body.error, missing.body.webhook_secret]).toEqual([422, 'Authenticator code required.', undefined]);
    const wrong = await asMember(service, owner, 'POST', REVEAL, { body: { totp_code: currentTotpCode(owner.secret) === '000000' ? '111111' : '000000' } });
    expect([wrong.status, wrong.body]).toEqual([422, { ...errorWithHint, error: 'Authenticator code is wrong.' }]);
    const malformed = await asMember(service, owner, 'POST', REVEAL, { body: { totp_code: 'abc', extra: true } });
    expect([malformed.status, malformed.body]).toEqual([422, errorWithHint]);

    const withoutAuthenticator = await member(service, own.merchant.id, 'developer');
    const refused = await asMember(service, withoutAuthenticator, 'POST', REVEAL, { body: { totp_code: '123456' } });
    expect([refused.status, refused.body]).toEqual([422, { ...errorWithHint, error: 'No authenticator enrolled.', hint: expect.stringContaining('Security page') }]);

    for (const role of ['viewer', 'reviewer']) {
      const below = await enrolledMember(service, own.merchant.id, role);
      await letNextCodeCome(service, below.user.id);
      const res = await asMember(service, below, 'POST', REVEAL, { body: { totp_code: currentTotpCode(below.secret) } });
      expect([role, res.status, res.body.webhook_secret]).toEqual([role, 403, undefined]);
    }
    expect((await asMember(service, null, 'POST', REVEAL, { body: {} })).status).toBe(401);
    expect((await asMember(service, owner, 'POST', REVEAL, { body: {}, csrf: false })).status).toBe(401);
    expect(await revealed(own.merchant.id)).toEqual([]);
  });

  it("counts wrong codes as failed sign-ins of the person: past the limit even the right code is 429", async () => {
    const own = await openShop(service);
    const developer = await enrolledMember(service, own.merchant.id, 'developer');
    await letNextCodeCome(service, developer.user.id);
    const right = currentTotpCode(developer.secret);
    const wrongCode = right === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) statuses.push((await asMember(service, developer, 'POST', REVEAL, { body: { totp_code: wrongCode } })).status);
    expect(statuses).toEqual(Array(10).fill(422));
    const throttled = await asMember(service, developer, 'POST', REVEAL, { body: { totp_code: right } });
    expect([throttled.status, throttled.body.webhook_secret]).toEqual([429, undefined]);
    expect(await revealed(own.merchant.id)).toEqual([]);
  });
});
