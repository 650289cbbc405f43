import { startService, type Service } from '../../support/harness';
import { waitFor } from '../../support/fixtures';
import { onboard, request } from '../../support/http';
import { countMailsTo } from '../../support/mailpit';
import { asMember, member, PASSWORD, signInRequest, uniqueEmail } from '../../support/merchant-accounts';
import { asOperator, operator } from '../../support/operators';

const PER_ACCOUNT = 2;
const ROUTE_LIMIT = 12;

let service: Service;
beforeAll(async () => {
  service = await startService({
    worker: false,
    replicas: 2,
    env: { MERCHANT_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT), ACCOUNT_ROUTE_MAX_REQUESTS_PER_ADDRESS: String(ROUTE_LIMIT), ACCOUNT_ROUTE_WINDOW_SECONDS: '120' },
  });
});
afterAll(async () => {
  await service.stop();
});

let lastAddress = 0;
const newAddress = () => `198.18.0.${++lastAddress}`;
const from = (address: string) => ({ 'x-forwarded-for': address });
const resetRequest = (email: string, address = newAddress()) => request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email }, headers: from(address) });

describe('the reset request tells nobody which emails have accounts', () => {
  it('answers before any of its work: with the people table locked, a known email is still answered at once, and mailed once it is free', async () => {
    const someone = await member(service, (await onboard(service)).id, 'viewer');
    const trx = await service.deps.db.transaction();
    try {
      await trx.raw('LOCK TABLE people IN ACCESS EXCLUSIVE MODE');
      const answered = await Promise.race([resetRequest(someone.email), new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000))]);
      expect(answered && [answered.status, answered.body]).toEqual([202, { requested: true }]);
      expect(await service.deps.db('outgoing_mails').where({ recipient: someone.email }).where('subject', 'like', 'Reset%')).toEqual([]);
    } finally {
      await trx.commit();
    }
    await waitFor(async () => (await countMailsTo(someone.email, /Reset/)) === 1, 10_000, 'the reset mail');
  });
});

describe('unauthenticated account routes are limited per address, across API processes', () => {
  it(`${ROUTE_LIMIT} requests from one address pass (whatever their answer), the next are 429 with Retry-After; another address passes`, async () => {
    const routes: Array<[string, Record<string, unknown>]> = [
      ['/merchant/v1/session', { email: uniqueEmail(), password: PASSWORD }],
      ['/merchant/v1/invitations/accept', { token: 'x'.repeat(43), password: PASSWORD }],
      ['/merchant/v1/invitations/totp', { token: 'x'.repeat(43) }],
      ['/merchant/v1/password-resets', { email: uniqueEmail() }],
      ['/merchant/v1/password-resets/totp', { token: 'x'.repeat(43) }],
      ['/merchant/v1/password-resets/complete', { token: 'x'.repeat(43), password: PASSWORD }],
      ['/dashboard/session', { email: uniqueEmail(), password: PASSWORD, totp_code: '000000' }],
    ];
    const address = newAddress();
    const call = ([path, body]: [string, Record<string, unknown>]) => request(service.baseUrl, 'POST', path, { body, headers: from(address) });
    for (let i = 0; i < ROUTE_LIMIT; i += 1) expect([i, (await call(routes[i % routes.length]!)).status]).not.toEqual([i, 429]);
    for (const route of routes) {
      const res = await call(route);
      expect([route[0], res.status, res.body]).toEqual([route[0], 429, { error: 'Too many account requests from this address.', hint: expect.stringMatching(/^Try again in \d+ seconds\.$/), request_id: expect.any(String) }]);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(service.proxy!.served.size).toBe(2);
    expect((await resetRequest(uniqueEmail(), newAddress())).status).toBe(202);
  });
});

describe('failed sign-ins and lockouts are audited with the email tried and the address', () => {
  it("a merchant person's: in their merchant's log; the lockout once", async () => {
    const merchant = await onboard(service);
    const owner = await member(service, merchant.id, 'owner');
    const someone = await member(service, merchant.id, 'viewer');
    const addresses = [newAddress(), newAddress(), newAddress()];
    for (const address of addresses) await signInRequest(service, { email: someone.email, password: 'wrong password' }, from(address));
    const log = await asMember(service, owner, 'GET', '/audit-log?limit=100');
    const entries = log.body.results.filter((entry: { target: string }) => entry.target === someone.user.id);
    const failed = { actor: 'anonymous', actor_kind: 'anonymous', actor_email: someone.email, target: someone.user.id };
    expect(entries.filter((entry: { action: string }) => entry.action === 'sign_in.failed')).toEqual([
      expect.objectContaining({ ...failed, action: 'sign_in.failed', client_address: addresses[1], details: { email: someone.email, reason: 'password' } }),
      expect.objectContaining({ ...failed, action: 'sign_in.failed', client_address: addresses[0] }),
    ]);
    expect(entries.filter((entry: { action: string }) => entry.action === 'sign_in.throttled')).toEqual([
      expect.objectContaining({ ...failed, action: 'sign_in.throttled', client_address: addresses[1], details: { email: someone.email, limit: 'account' } }),
    ]);
  });

  it("an unknown email's: in the operator's log, which the operator reads on its audit page", async () => {
    const email = uniqueEmail('nobody');
    const address = newAddress();
    expect((await signInRequest(service, { email, password: PASSWORD }, from(address))).status).toBe(401);
    const page = await request(service.baseUrl, 'GET', `/admin/v1/audit-log?operator_only=true&actor=${encodeURIComponent(email)}`, { token: service.adminToken });
    expect([page.status, page.body.results]).toEqual([200, [expect.objectContaining({ merchant_id: null, action: 'sign_in.failed', actor_kind: 'anonymous', actor_email: email, target: null, client_address: address })]]);
  });
});

describe("the operator's audit page (GET /admin/v1/audit-log)", () => {
  it("pages every merchant's entries and the operator's, filtered by merchant; operator_admin only", async () => {
    const merchant = await onboard(service);
    await member(service, merchant.id, 'owner');
    await member(service, merchant.id, 'viewer');
    const first = await request(service.baseUrl, 'GET', `/admin/v1/audit-log?merchant_id=${merchant.id}&limit=1`, { token: service.adminToken });
    expect([first.status, first.body.results.length, first.body.has_more]).toEqual([200, 1, true]);
    const rest = await request(service.baseUrl, 'GET', `/admin/v1/audit-log?merchant_id=${merchant.id}&limit=100&starting_after=${first.body.next_starting_after}`, { token: service.adminToken });
    const all = [...first.body.results, ...rest.body.results];
    expect(all.every((entry: { merchant_id: string }) => entry.merchant_id === merchant.id)).toBe(true);
    expect(all.map((entry: { action: string }) => entry.action)).toEqual(expect.arrayContaining(['invitation.created', 'invitation.accepted', 'session.created']));

    const admin = await operator(service, 'operator_admin');
    const everything = await asOperator(service, admin, 'GET', '/admin/v1/audit-log?limit=100');
    expect(everything.status).toBe(200);
    expect(new Set(everything.body.results.map((entry: { merchant_id: string | null }) => entry.merchant_id === null))).toEqual(new Set([true, false]));
    const viewer = await operator(service, 'operator_viewer');
    expect((await asOperator(service, viewer, 'GET', '/admin/v1/audit-log')).status).toBe(403);
  });
});
