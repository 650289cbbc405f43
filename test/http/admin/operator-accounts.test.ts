import { currentTotpCode } from '../../../src/identity/secrets';
import { operatorRoleMay, type OperatorRole } from '../../../src/identity/operator-roles';
import { takeAnswerMismatches } from '../../support/openapi-answers';
import { createApp } from '../../../src/app';
import { declaredAccessByRoute, routeKey } from '../../support/routes';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import { latestMailTo, linkIn } from '../../support/mailpit';
import { letNextCodeCome } from '../../support/authenticators';
import { openShop, paidCardDeposit, pausedForReview, type Shop } from '../../support/fixtures';
import { request, uniqueCustomer } from '../../support/http';
import { asMember, errorWithHint, PASSWORD, signIn, tokenOf, uniqueEmail } from '../../support/merchant-accounts';
import { acceptOperatorInvitation, asOperator, dashboardCookieOf, inviteOperator, operator, OPERATOR_ROLES, operatorSignInRequest, randomAddress, type Operator } from '../../support/operators';

let service: Service;
useServiceWithReceiver((env) => ({ service } = env));

const pendingReview = (shop: Shop) => pausedForReview(service, shop);

const paidCharge = (shop: Shop) => paidCardDeposit(service, shop);

async function restrictedCustomer(shop: Shop): Promise<string> {
  const created = await request(service.baseUrl, 'POST', '/api/v1/customers', { token: shop.merchant.api_key, body: uniqueCustomer() });
  await service.deps.db('customers').where({ id: created.body.id }).update({ restriction_reason: 'KYC_DOES_NOT_MATCH_PROFILE_NAME', restricted_at: new Date() });
  return created.body.id as string;
}

let people: Record<string, Operator>;
beforeAll(async () => {
  people = {};
  for (const role of OPERATOR_ROLES) people[role] = await operator(service, role);
});

describe('operator accounts: invitation, acceptance with an authenticator, sign-in', () => {
  it('invites with the admin token (201, mailed link), accepts only with an authenticator, signs in with email, password and code, and acts', async () => {
    const email = uniqueEmail('ops');
    const invited = await inviteOperator(service, email, 'operator_admin');
    expect([invited.status, invited.body]).toEqual([201, { id: expect.stringMatching(/^inv_/), email, role: 'operator_admin', expires_at: expect.any(String), accept_url: expect.stringContaining('/merchant/accept-invitation?token=') }]);
    const token = tokenOf(invited.body.accept_url);
    const page = await fetch(invited.body.accept_url);
    expect(await page.text()).toContain('Authenticator app (required)');
    const withoutCode = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password: PASSWORD } });
    expect([withoutCode.status, withoutCode.body.error]).toEqual([422, 'Authenticator required.']);
    const secret = await acceptOperatorInvitation(service, invited.body.accept_url);

    // Not a merchant's person: the merchant sign-in refuses the operator and, to whoever knows the password, says where to sign in.
    const elsewhere = await request(service.baseUrl, 'POST', '/merchant/v1/session', { body: { email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) } });
    expect([elsewhere.status, elsewhere.body]).toEqual([401, { error: 'This account signs in on the other dashboard.', hint: "The operator's people sign in at /dashboard/login.", request_id: expect.any(String) }]);
    const guessed = await request(service.baseUrl, 'POST', '/merchant/v1/session', { body: { email, password: 'not the password' } });
    expect([guessed.status, guessed.body]).toEqual([401, { error: 'Email or password is wrong.', request_id: expect.any(String) }]);
    expect(elsewhere.headers.get('set-cookie')).toBeNull();
    const noCode = await operatorSignInRequest(service, { email, password: PASSWORD });
    expect([noCode.status, noCode.body.error]).toEqual([401, 'Authenticator code required.']);
    const signedIn = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) });
    expect([signedIn.status, signedIn.body.user]).toEqual([200, { id: expect.stringMatching(/^opr_/), email, role: 'operator_admin', totp_enabled: true, created_at: expect.any(String) }]);
    const setCookie = signedIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const me = { cookie: dashboardCookieOf(signedIn), csrf: signedIn.body.csrf as string };
    expect((await asOperator(service, me, 'GET', '/dashboard/session')).body.user.email).toBe(email);

    // Acts: onboards a merchant and invites its owner through the dashboard session.
    const created = await asOperator(service, me, 'POST', '/admin/v1/merchants', { body: { name: 'Made by an operator' } });
    expect(created.status).toBe(201);
    const owner = uniqueEmail('owner');
    const ownerInvite = await asOperator(service, me, 'POST', `/admin/v1/merchants/${created.body.id}/invitations`, { body: { email: owner, role: 'owner' } });
    expect(ownerInvite.status).toBe(201);
    await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(ownerInvite.body.accept_url), password: PASSWORD } });
    const ownerSession = await signIn(service, owner);
    const log = await asMember(service, ownerSession, 'GET', '/audit-log');
    expect(log.body.results.find((e: { action: string }) => e.action === 'invitation.created')).toMatchObject({ actor: signedIn.body.user.id, actor_kind: 'operator', actor_email: email });

    // An operator_admin invites operators too; a second invitation of a taken email is refused.
    const next = await asOperator(service, me, 'POST', '/admin/v1/operators/invitations', { body: { email: uniqueEmail('ops'), role: 'operator_viewer' } });
    expect(next.status).toBe(201);
    expect((await asOperator(service, me, 'POST', '/admin/v1/operators/invitations', { body: { email, role: 'operator_viewer' } })).status).toBe(422);
    expect((await asOperator(service, me, 'POST', '/admin/v1/operators/invitations', { body: { email: uniqueEmail(), role: 'owner' } })).status).toBe(422);
  });

  it('refuses the old token-and-name sign-in, and a merchant session opens neither the dashboard nor the admin API', async () => {
    const old = await operatorSignInRequest(service, { token: service.adminToken, name: 'Old habits' });
    expect([old.status, old.body]).toEqual([422, expect.objectContaining({ error: expect.any(String) })]);
    const shop = await openShop(service);
    const email = uniqueEmail('owner');
    const invited = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/invitations`, { token: service.adminToken, body: { email, role: 'owner' } });
    await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: PASSWORD } });
    expect((await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: '123456' })).status).toBe(401);
    const merchantSession = await signIn(service, email);
    const asDashboardCookie = { cookie: merchantSession.cookie.replace('merchant_session=', 'dashboard_session='), csrf: merchantSession.csrf };
    expect((await asOperator(service, asDashboardCookie, 'GET', '/admin/v1/merchants')).status).toBe(401);
    expect((await asOperator(service, asDashboardCookie, 'GET', '/dashboard/session')).status).toBe(401);
    // And the other way round: an operator's cookie is no merchant session.
    const viewer = people.operator_viewer!;
    const asMerchantCookie = { cookie: viewer.cookie.replace('dashboard_session=', 'merchant_session='), csrf: viewer.csrf };
    expect((await asMember(service, asMerchantCookie, 'GET', '/me')).status).toBe(401);
  });
});

describe("an operator's forgotten password", () => {
  it('is reset from the mailed link of the merchant accounts\' reset, with a code of the authenticator, which stays; the invitation was mailed too', async () => {
    const email = uniqueEmail('forgetful');
    const invited = await inviteOperator(service, email, 'operator_viewer');
    expect(linkIn(await latestMailTo(email, /invitation/))).toBe(invited.body.accept_url);
    const secret = await acceptOperatorInvitation(service, invited.body.accept_url);
    expect((await request(service.baseUrl, 'POST', '/merchant/v1/password-resets', { body: { email } })).status).toBe(202);
    const link = linkIn(await latestMailTo(email, /Reset/));
    const newPassword = 'a brand new password 42';
    const withoutCode = await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body: { token: tokenOf(link), password: newPassword } });
    expect([withoutCode.status, withoutCode.body.error]).toEqual([422, 'Authenticator code required.']);
    expect((await request(service.baseUrl, 'POST', '/merchant/v1/password-resets/complete', { body: { token: tokenOf(link), password: newPassword, totp_code: currentTotpCode(secret, 1) } })).status).toBe(200);
    const operatorId = (await service.deps.db('people').where({ email }).first()).id as string;
    await letNextCodeCome(service, operatorId);
    expect((await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) })).status).toBe(401);
    const signedIn = await operatorSignInRequest(service, { email, password: newPassword, totp_code: currentTotpCode(secret, 1) });
    expect([signedIn.status, signedIn.body.user.role]).toEqual([200, 'operator_viewer']);
  });
});

describe('a code works once (merchant people and operators alike)', () => {
  it('refuses a code replayed at sign-in within its 30 seconds, and an older one', async () => {
    const email = uniqueEmail('replay');
    const invited = await inviteOperator(service, email, 'operator_viewer');
    const token = tokenOf(invited.body.accept_url);
    const secret = (await request(service.baseUrl, 'POST', '/merchant/v1/invitations/totp', { body: { token } })).body.secret as string;
    const acceptanceCode = currentTotpCode(secret);
    expect((await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password: PASSWORD, totp_code: acceptanceCode } })).status).toBe(201);
    // The acceptance spent its code.
    const replayedAcceptance = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: acceptanceCode });
    expect([replayedAcceptance.status, replayedAcceptance.body.error]).toEqual([401, 'Authenticator code already used.']);
    const code = currentTotpCode(secret, 1);
    expect((await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: code })).status).toBe(200);
    const replay = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: code });
    expect([replay.status, replay.body]).toEqual([401, { ...errorWithHint, error: 'Authenticator code already used.' }]);
    const older = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, -1) });
    expect([older.status, older.body.error]).toEqual([401, 'Authenticator code already used.']);
  });

  it('refuses a merchant person\'s code replayed at sign-in and at enrolment confirmation', async () => {
    const shop = await openShop(service);
    const email = uniqueEmail('member');
    const invited = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/invitations`, { token: service.adminToken, body: { email, role: 'owner' } });
    await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: PASSWORD } });
    const person = await signIn(service, email);
    const started = await asMember(service, person, 'POST', '/me/totp');
    const code = currentTotpCode(started.body.secret);
    const confirmed = await asMember(service, person, 'POST', '/me/totp/confirm', { body: { code } });
    expect(confirmed.status).toBe(200);
    const replayedSignIn = await request(service.baseUrl, 'POST', '/merchant/v1/session', { body: { email, password: PASSWORD, totp_code: code }, headers: { 'x-forwarded-for': randomAddress() } });
    expect([replayedSignIn.status, replayedSignIn.body.error]).toEqual([401, 'Authenticator code already used.']);
    await signIn(service, email, PASSWORD, { totp_code: currentTotpCode(started.body.secret, 1) });
    // A new enrolment confirmed with a code of a step already spent is refused too.
    const again = await asMember(service, person, 'POST', '/me/totp', { body: { recovery_code: confirmed.body.recovery_codes[0] } });
    const stale = await asMember(service, person, 'POST', '/me/totp/confirm', { body: { code: currentTotpCode(again.body.secret) } });
    expect([stale.status, stale.body.error]).toEqual([422, 'Authenticator code already used.']);
  });
});

describe('the operator sign-in is throttled per account', () => {
  it('answers 429 with Retry-After after the account\'s failures, from any address, a right code included', async () => {
    const email = uniqueEmail('throttled');
    const invited = await inviteOperator(service, email, 'operator_viewer');
    const secret = await acceptOperatorInvitation(service, invited.body.accept_url);
    const max = service.deps.config.merchantSignInThrottle.maxFailuresPerAccount;
    for (let i = 0; i < max; i++) {
      expect((await operatorSignInRequest(service, { email, password: 'wrong password here', totp_code: '000000' })).status).toBe(401);
    }
    const blocked = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, 1) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

/** Every admin route of the OpenAPI document, with sample ids: what each operator role gets. */
async function adminRoutes(): Promise<Array<[string, string]>> {
  const doc = (await request(service.baseUrl, 'GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const routes: Array<[string, string]> = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/v1/')) continue;
    for (const method of Object.keys(operations)) routes.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x_missing')]);
  }
  return routes;
}

describe('operator roles on the admin API', () => {
  it('each admin route declares its permission where it is registered', () => {
    const declared = declaredAccessByRoute(createApp(service.deps));
    expect(declared.get(routeKey('POST', '/admin/v1/operators/invitations'))).toEqual({ kind: 'operator', permission: 'operators' });
    expect(declared.get(routeKey('POST', '/admin/v1/reviews/{id}/approve'))).toEqual({ kind: 'operator', permission: 'decide_reviews' });
    expect(declared.get(routeKey('GET', '/admin/v1/merchants/{id}'))).toEqual({ kind: 'operator', permission: 'read' });
  });

  it('no spelling of a path reaches a route past its role check (letter case, trailing slash, doubled slashes, percent-encoding)', async () => {
    const viewer = people.operator_viewer!;
    for (const path of ['/admin/v1/OPERATORS', '/admin/v1/Operators/', '/admin/v1//operators', '/admin/v1/%6Fperators', '/admin/v1/operators/INVITATIONS', '/admin/v1/Audit-Log']) {
      const res = await asOperator(service, viewer, 'GET', path);
      expect([path, [403, 404].includes(res.status), JSON.stringify(res.body).includes('@')]).toEqual([path, true, false]);
    }
    expect((await asOperator(service, viewer, 'GET', '/admin/v1/OPERATORS')).status).toBe(403);
    // These spellings are not the document's paths on purpose: their refusals are not checked against it.
    takeAnswerMismatches();
  });

  it.each(OPERATOR_ROLES)('%s: 403 {error, hint} on every admin route beyond the role; the others pass the guard; no session is 401', async (role) => {
    const who = people[role]!;
    const routes = await adminRoutes();
    expect(routes.length).toBeGreaterThan(25);
    const declared = declaredAccessByRoute(createApp(service.deps));
    for (const [method, path] of routes) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const res = await asOperator(service, who, method, path, { body });
      const access = declared.get(routeKey(method, path.replace(/x_missing/g, '{x}')));
      if (access?.kind !== 'operator') throw new Error(`${method} ${path} declares no operator permission`);
      if (operatorRoleMay(role as OperatorRole, access.permission)) {
        expect([method, path, [401, 403].includes(res.status)]).toEqual([method, path, false]);
      } else {
        expect([method, path, res.status, res.body]).toEqual([method, path, 403, { error: expect.stringContaining(`Your role (${role}) does not allow`), hint: expect.stringContaining('operator_admin'), request_id: expect.any(String) }]);
      }
      if (method !== 'GET') {
        const noCsrf = await asOperator(service, who, method, path, { body, csrf: false });
        expect([method, path, noCsrf.status, noCsrf.body.error]).toEqual([method, path, 401, 'Missing or wrong CSRF token.']);
      }
    }
  });
});

describe("changing an operator's role", () => {
  it('applies with the next call of their session; unknown ids are 404', async () => {
    const promoted = await operator(service, 'operator_viewer');
    const body = { review: { enabled: true, min_amount_cents: 100 } };
    const shop = await openShop(service);
    expect((await asOperator(service, promoted, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { body })).status).toBe(403);
    const changed = await request(service.baseUrl, 'PATCH', `/admin/v1/operators/${promoted.user.id}`, { token: service.adminToken, body: { role: 'operator_admin' } });
    expect([changed.status, changed.body.role]).toEqual([200, 'operator_admin']);
    expect((await asOperator(service, promoted, 'PATCH', `/admin/v1/merchants/${shop.merchant.id}/settings`, { body })).status).toBe(200);
    expect((await request(service.baseUrl, 'PATCH', '/admin/v1/operators/opr_missing', { token: service.adminToken, body: { role: 'operator_viewer' } })).status).toBe(404);
    expect((await request(service.baseUrl, 'PATCH', `/admin/v1/operators/${promoted.user.id}`, { token: service.adminToken, body: { role: 'owner' } })).status).toBe(422);
    const log = await service.deps.db('audit_log').where({ action: 'settings.changed', merchant_id: shop.merchant.id }).first();
    expect([log.actor, log.actor_email]).toEqual([promoted.user.id, promoted.email]);
    // Only what moved, before and after: the review rule, not the settings the patch left alone.
    expect(log.details).toEqual({ changes: { review: { from: expect.objectContaining({ enabled: false }), to: expect.objectContaining(body.review) } } });
    // The transaction's clock: an entry written in a later transaction would carry a later time.
    expect(log.created_at).toEqual((await service.deps.db('merchants').where({ id: shop.merchant.id }).first()).updated_at);
  });
});

describe('removal and sign-out end a session at once', () => {
  it('a removed operator\'s session is 401 on its next call; a signed-out one too', async () => {
    const doomed = await operator(service, 'operator_reviewer');
    expect((await asOperator(service, doomed, 'GET', '/admin/v1/merchants')).status).toBe(200);
    const listed = await request(service.baseUrl, 'GET', '/admin/v1/operators', { token: service.adminToken });
    expect(listed.body.results.map((o: { id: string }) => o.id)).toContain(doomed.user.id);
    // A reviewer may not remove anyone; an operator_admin (here through their session) may.
    expect((await asOperator(service, people.operator_reviewer!, 'DELETE', `/admin/v1/operators/${doomed.user.id}`)).status).toBe(403);
    const removed = await asOperator(service, people.operator_admin!, 'DELETE', `/admin/v1/operators/${doomed.user.id}`);
    expect([removed.status, removed.body]).toEqual([200, { id: doomed.user.id, removed: true }]);
    expect((await asOperator(service, doomed, 'GET', '/admin/v1/merchants')).status).toBe(401);
    expect((await asOperator(service, doomed, 'GET', '/dashboard/session')).status).toBe(401);
    expect((await request(service.baseUrl, 'DELETE', `/admin/v1/operators/${doomed.user.id}`, { token: service.adminToken })).status).toBe(404);

    const leaving = await operator(service, 'operator_viewer');
    expect((await asOperator(service, leaving, 'DELETE', '/dashboard/session', { csrf: false })).status).toBe(401);
    const out = await asOperator(service, leaving, 'DELETE', '/dashboard/session');
    expect([out.status, out.headers.get('set-cookie')]).toEqual([200, expect.stringMatching(/dashboard_session=;/)]);
    expect((await asOperator(service, leaving, 'GET', '/admin/v1/merchants')).status).toBe(401);
  });
});

describe('decisions, refunds and lifts name the operator', () => {
  it('records decided_by, requested_by and the audit actor as the person; the admin token stays the automation actor', async () => {
    // A webhook_url nobody listens on: the resend below needs one, its deliveries may fail.
    const shop = await openShop(service, { review: { enabled: true, min_amount_cents: 500 }, webhook_url: 'http://127.0.0.1:9/webhooks' });
    const reviewer = people.operator_reviewer!;
    const reviewId = await pendingReview(shop);
    const approved = await asOperator(service, reviewer, 'POST', `/admin/v1/reviews/${reviewId}/approve`);
    expect([approved.status, approved.body.decided_by]).toEqual([200, reviewer.email]);
    const byToken = await request(service.baseUrl, 'POST', `/admin/v1/reviews/${await pendingReview(shop)}/decline`, { token: service.adminToken });
    expect([byToken.status, byToken.body.decided_by]).toEqual([200, 'admin API']);

    const chargeId = await paidCharge(shop);
    const refunded = await asOperator(service, reviewer, 'POST', `/admin/v1/charges/${chargeId}/refund`);
    expect([refunded.status, refunded.body.status]).toEqual([200, 'refunded']);
    expect((await service.deps.db('refunds').where({ charge_id: chargeId }).first()).requested_by).toBe(reviewer.email);

    const succeeded = await service.deps.db('events').where({ charge_id: chargeId, type: 'checkout.succeeded' }).first();
    const resent = await asOperator(service, people.operator_admin!, 'POST', `/admin/v1/events/${succeeded.id}/resend`);
    expect([resent.status, resent.body.resent]).toEqual([202, true]);

    const customerId = await restrictedCustomer(shop);
    expect((await asOperator(service, reviewer, 'POST', `/admin/v1/customers/${customerId}/unrestrict`)).status).toBe(200);
    expect((await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/api_keys`, { token: service.adminToken })).status).toBe(201);

    const email = uniqueEmail('owner');
    const invited = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${shop.merchant.id}/invitations`, { token: service.adminToken, body: { email, role: 'owner' } });
    await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: PASSWORD } });
    const owner = await signIn(service, email);
    const log = (await asMember(service, owner, 'GET', '/audit-log?limit=100')).body.results as Array<Record<string, unknown>>;
    const entry = (action: string, target: string) => log.find((e) => e.action === action && e.target === target);
    const operatorActor = { actor: reviewer.user.id, actor_kind: 'operator', actor_email: reviewer.email };
    expect(entry('review.approved', reviewId)).toMatchObject(operatorActor);
    expect(entry('charge.refunded', chargeId)).toMatchObject(operatorActor);
    expect(entry('customer.unrestricted', customerId)).toMatchObject(operatorActor);
    const admin = people.operator_admin!;
    expect(entry('event.resent', succeeded.id)).toMatchObject({ actor: admin.user.id, actor_kind: 'operator', actor_email: admin.email, details: { series: resent.body.series } });
    expect(log.find((e) => e.action === 'review.declined')).toMatchObject({ actor: 'admin', actor_kind: 'admin', actor_email: null });
    expect(log.find((e) => e.action === 'api_key.issued')).toMatchObject({ actor: 'admin', actor_kind: 'admin' });
  });
});
