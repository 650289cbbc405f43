import { startService, type Service } from '../../support/harness';
import { onboard, request } from '../../support/http';
import { latestMailTo, linkIn } from '../../support/mailpit';
import { adminInvite, asMember, member, PASSWORD, signIn, signInRequest, tokenOf, uniqueEmail, walkPages, type SignedIn } from '../../support/merchant-accounts';

let service: Service;
beforeAll(async () => {
  service = await startService({ worker: false, replicas: 1 });
});
afterAll(async () => {
  await service.stop();
});

const accept = (token: string, password = PASSWORD) => request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password } });
const errorWithHint = { error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) };

describe('invitations', () => {
  it('invites by the admin API, mails the link, and keeps only a hash of the token', async () => {
    const merchant = await onboard(service);
    const email = uniqueEmail('Owner');
    const res = await adminInvite(service, merchant.id, email, 'owner');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^inv_/), email: email.toLowerCase(), role: 'owner', expires_at: expect.any(String), accept_url: expect.stringContaining('/merchant/accept-invitation?token=') });
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const mail = await latestMailTo(email, /invitation/);
    expect(linkIn(mail)).toBe(res.body.accept_url);
    // The mail names the business and who invited (here the operator's admin token), and the role in words.
    expect(mail.text.split('\n')[0]!.trim()).toBe('The operator invited you to join Test merchant on the payments dashboard as Owner.');

    const token = tokenOf(res.body.accept_url);
    const rows = await service.deps.db('invitations').where({ id: res.body.id });
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('answers 404 for an unknown merchant, 422 for a bad role or an email that has an account, 401 without the admin token', async () => {
    const merchant = await onboard(service);
    expect((await adminInvite(service, 'mer_unknown', uniqueEmail(), 'owner')).status).toBe(404);
    const badRole = await adminInvite(service, merchant.id, uniqueEmail(), 'admin');
    expect([badRole.status, badRole.body]).toEqual([422, errorWithHint]);
    const extra = await request(service.baseUrl, 'POST', `/admin/v1/merchants/${merchant.id}/invitations`, { token: service.adminToken, body: { email: uniqueEmail(), role: 'viewer', extra: 1 } });
    expect(extra.status).toBe(422);
    const someone = await member(service, merchant.id, 'viewer');
    expect((await adminInvite(service, merchant.id, someone.email, 'owner')).status).toBe(422);
    expect((await request(service.baseUrl, 'POST', `/admin/v1/merchants/${merchant.id}/invitations`, { body: { email: uniqueEmail(), role: 'owner' } })).status).toBe(401);
  });

  it('accepts once: a used, expired or unknown token is 422 with a hint; the password needs 12 characters and is stored as argon2id', async () => {
    const merchant = await onboard(service);
    const invited = await adminInvite(service, merchant.id, uniqueEmail(), 'developer');
    const token = tokenOf(invited.body.accept_url);

    const short = await accept(token, 'elevenchars');
    expect([short.status, short.body]).toEqual([422, errorWithHint]);
    const ok = await accept(token);
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ user: { id: expect.stringMatching(/^usr_/), email: invited.body.email, role: 'developer', totp_enabled: false, created_at: expect.any(String) } });
    const row = await service.deps.db('people').where({ id: ok.body.user.id }).first();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);

    const again = await accept(token);
    expect([again.status, again.body]).toEqual([422, { ...errorWithHint, error: 'Invitation not valid.' }]);
    expect((await accept('unknown-token')).status).toBe(422);

    const expiring = await adminInvite(service, merchant.id, uniqueEmail(), 'viewer');
    await service.deps.db('invitations').where({ id: expiring.body.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await accept(tokenOf(expiring.body.accept_url));
    expect([expired.status, expired.body]).toEqual([422, { ...errorWithHint, error: 'Invitation not valid.' }]);
  });

  it("serves the link's page with what it shows escaped, without sending the token on (no Referer) or caching it", async () => {
    const merchant = await onboard(service);
    const invited = await adminInvite(service, merchant.id, uniqueEmail(), 'reviewer');
    const page = await fetch(invited.body.accept_url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(html).toContain(`The operator invited ${invited.body.email} to join Test merchant on the payments dashboard as Reviewer.`);
    // Styled by the dashboards' stylesheet; the QR code is a data URL: nothing else may load.
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'nonce-[^']+'; style-src 'self'; img-src data:;/);
    expect(html).toContain('minlength="12"');

    const hostile = await fetch(`${service.baseUrl}/merchant/accept-invitation?token=%3Cscript%3Ealert(1)%3C/script%3E`);
    const hostileHtml = await hostile.text();
    expect(hostile.status).toBe(200);
    expect(hostileHtml).not.toContain('<script>alert');
    expect(hostileHtml).toContain('used, expired or unknown');
  });
});

describe('sign-in and sessions', () => {
  it('signs in with the session cookie (HttpOnly, SameSite=Strict, Secure outside development) and answers the user, merchant and csrf_token', async () => {
    const merchant = await onboard(service, { name: 'Acme' });
    const invited = await adminInvite(service, merchant.id, uniqueEmail(), 'owner');
    await accept(tokenOf(invited.body.accept_url));
    const res = await signInRequest(service, { email: invited.body.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: invited.body.email, role: 'owner', totp_enabled: false, created_at: expect.any(String) },
      merchant: { id: merchant.id, name: 'Acme', environment: 'sandbox' },
      csrf_token: expect.any(String),
      totp_enrolment_required: false,
    });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^merchant_session=\w+;/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Secure/);
  });

  it('sets the cookie without Secure in development only (local http://localhost has no TLS)', async () => {
    const development = await startService({ worker: false, replicas: 1, env: { NODE_ENV: 'development' } });
    try {
      const merchant = await onboard(development);
      const invited = await adminInvite(development, merchant.id, uniqueEmail(), 'viewer');
      await request(development.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: PASSWORD } });
      const res = await signInRequest(development, { email: invited.body.email, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/);
      expect(res.headers.get('set-cookie')).not.toMatch(/Secure/);
    } finally {
      await development.stop();
    }
  });

  it('answers a wrong password or an unknown email 401 {error}', async () => {
    const merchant = await onboard(service);
    const someone = await member(service, merchant.id, 'viewer');
    for (const body of [{ email: someone.email, password: 'not the password' }, { email: uniqueEmail(), password: PASSWORD }]) {
      const res = await signInRequest(service, body);
      expect([res.status, res.body]).toEqual([401, { error: 'Email or password is wrong.', request_id: expect.any(String) }]);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('signs out: the session is revoked server-side, so its cookie is refused afterwards; signing out needs the CSRF header', async () => {
    const merchant = await onboard(service);
    const someone = await member(service, merchant.id, 'viewer');
    expect((await asMember(service, someone, 'GET', '/me')).body.user.id).toBe(someone.user.id);
    expect((await asMember(service, someone, 'DELETE', '/session', { csrf: false })).status).toBe(401);
    const out = await asMember(service, someone, 'DELETE', '/session');
    expect([out.status, out.body]).toEqual([200, { signed_out: true }]);
    const after = await asMember(service, someone, 'GET', '/me');
    expect([after.status, after.body]).toEqual([401, errorWithHint]);
  });
});

/** Every session-guarded route: who may call it, and whether it changes something (CSRF). */
const ALL_ROLES = ['owner', 'developer', 'reviewer', 'viewer'];
const ROUTES: Array<{ method: string; path: (id: string) => string; body?: (email: string) => unknown; allowed: string[]; ok: number[] }> = [
  { method: 'GET', path: () => '/me', allowed: ALL_ROLES, ok: [200] },
  { method: 'DELETE', path: () => '/session', allowed: ALL_ROLES, ok: [200] },
  { method: 'POST', path: () => '/me/totp', allowed: ALL_ROLES, ok: [201] },
  // No enrolment started: the code is refused, past the guards.
  { method: 'POST', path: () => '/me/totp/confirm', body: () => ({ code: '123456' }), allowed: ALL_ROLES, ok: [422] },
  { method: 'GET', path: () => '/team', allowed: ['owner'], ok: [200] },
  { method: 'POST', path: () => '/team/invitations', body: (email) => ({ email, role: 'viewer' }), allowed: ['owner'], ok: [201] },
  { method: 'PATCH', path: (id) => `/team/${id}`, body: () => ({ role: 'reviewer' }), allowed: ['owner'], ok: [200] },
  { method: 'DELETE', path: (id) => `/team/${id}`, allowed: ['owner'], ok: [200] },
  { method: 'GET', path: () => '/audit-log', allowed: ['owner'], ok: [200] },
];
const PERMISSION_TEXT: Record<string, string> = { '/audit-log': 'reading the audit log' };

describe('the session guard and the role guard', () => {
  let people: Record<string, SignedIn>;
  let merchantId: string;
  beforeAll(async () => {
    merchantId = (await onboard(service)).id;
    people = {};
    for (const role of ALL_ROLES) people[role] = await member(service, merchantId, role);
  });

  it.each(ROUTES.map((route) => [`${route.method} ${route.path(':id')}`, route] as const))(
    '%s: 401 without a session, a CSRF header on a change, or with a removed person\'s session; 403 {error, hint} below the role',
    async (_name, route) => {
      const target = await member(service, merchantId, 'viewer');
      const path = route.path(target.user.id);
      const body = route.body?.(uniqueEmail());
      const none = await asMember(service, null, route.method, path, { body });
      expect([none.status, none.body]).toEqual([401, errorWithHint]);
      if (route.method !== 'GET') {
        const noCsrf = await asMember(service, people.owner!, route.method, path, { body, csrf: false });
        expect([noCsrf.status, noCsrf.body]).toEqual([401, { ...errorWithHint, error: 'Missing or wrong CSRF token.' }]);
        const wrongCsrf = await asMember(service, { ...people.owner!, csrf: 'x'.repeat(43) }, route.method, path, { body });
        expect(wrongCsrf.status).toBe(401);
      }
      for (const role of ALL_ROLES.filter((r) => !route.allowed.includes(r))) {
        const res = await asMember(service, people[role]!, route.method, path, { body });
        const what = PERMISSION_TEXT[route.path('x')] ?? 'managing the team';
        expect([role, res.status, res.body]).toEqual([role, 403, { error: `Your role (${role}) does not allow ${what}.`, hint: expect.stringContaining('owner'), request_id: expect.any(String) }]);
      }
      // A removed owner's session is refused at once.
      const removed = await member(service, merchantId, 'owner');
      expect((await asMember(service, people.owner!, 'DELETE', `/team/${removed.user.id}`)).status).toBe(200);
      const afterRemoval = await asMember(service, removed, route.method, path, { body });
      expect([afterRemoval.status, afterRemoval.body]).toEqual([401, { ...errorWithHint, error: 'Sign in first.' }]);
      // A fresh session of an allowed role gets past both guards.
      const allowed = await signIn(service, people[route.allowed[route.allowed.length - 1]!]!.email);
      const res = await asMember(service, allowed, route.method, path, { body });
      expect([route.ok.includes(res.status), res.status, res.text]).toEqual([true, res.status, res.text]);
    },
  );

  it('pages the team in the order people joined; a cursor not of the team is 404', async () => {
    const merchantId = (await onboard(service)).id;
    const joined: SignedIn[] = [];
    for (const role of ['owner', 'viewer', 'developer', 'reviewer', 'viewer']) joined.push(await member(service, merchantId, role));
    expect(await walkPages(service, joined[0]!, '/team', 2, 'id')).toEqual(joined.map((p) => p.user.id));
    const foreign = await asMember(service, joined[0]!, 'GET', `/team?starting_after=${people.owner!.user.id}`);
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Team member not found.']);
  });

  it("answers another merchant's people 404, like missing ones, and lists only the session's merchant", async () => {
    const other = await member(service, (await onboard(service)).id, 'viewer');
    for (const [method, body] of [['PATCH', { role: 'owner' }], ['DELETE', undefined]] as const) {
      const res = await asMember(service, people.owner!, method, `/team/${other.user.id}`, { body });
      expect([res.status, res.body]).toEqual([404, { error: 'Team member not found.', hint: expect.any(String), request_id: expect.any(String) }]);
      expect((await asMember(service, people.owner!, method, '/team/usr_missing', { body })).status).toBe(404);
    }
    expect((await asMember(service, other, 'GET', '/me')).status).toBe(200);
    const team = await asMember(service, people.owner!, 'GET', '/team');
    expect(team.body.results.map((u: { id: string }) => u.id)).not.toContain(other.user.id);
    expect(team.body.results.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining(Object.values(people).map((p) => p.user.id)));
  });

  it("a role change applies to the person's next call", async () => {
    const someone = await member(service, merchantId, 'viewer');
    expect((await asMember(service, someone, 'GET', '/team')).status).toBe(403);
    const changed = await asMember(service, people.owner!, 'PATCH', `/team/${someone.user.id}`, { body: { role: 'owner' } });
    expect([changed.status, changed.body.role]).toEqual([200, 'owner']);
    expect((await asMember(service, someone, 'GET', '/team')).status).toBe(200);
    expect((await asMember(service, people.owner!, 'PATCH', `/team/${someone.user.id}`, { body: { role: 'developer' } })).body.role).toBe('developer');
  });

  it("removing a person ends their sessions at once: their next call is 401", async () => {
    const someone = await member(service, merchantId, 'developer');
    const second = await signIn(service, someone.email);
    expect((await asMember(service, someone, 'GET', '/me')).status).toBe(200);
    const removed = await asMember(service, people.owner!, 'DELETE', `/team/${someone.user.id}`);
    expect([removed.status, removed.body]).toEqual([200, { id: someone.user.id, removed: true }]);
    for (const session of [someone, second]) expect((await asMember(service, session, 'GET', '/me')).status).toBe(401);
    expect((await signInRequest(service, { email: someone.email, password: PASSWORD })).status).toBe(401);
  });

  it('keeps the last owner: removing or demoting them is 422', async () => {
    const owner = await member(service, (await onboard(service)).id, 'owner');
    const demote = await asMember(service, owner, 'PATCH', `/team/${owner.user.id}`, { body: { role: 'viewer' } });
    expect([demote.status, demote.body]).toEqual([422, { error: 'The last owner stays.', hint: expect.any(String), request_id: expect.any(String) }]);
    expect((await asMember(service, owner, 'DELETE', `/team/${owner.user.id}`)).status).toBe(422);
  });

  it('keeps an owner when two owners remove each other at once', async () => {
    const merchant = (await onboard(service)).id;
    const [a, b] = [await member(service, merchant, 'owner'), await member(service, merchant, 'owner')];
    const answers = await Promise.all([asMember(service, a, 'DELETE', `/team/${b.user.id}`), asMember(service, b, 'DELETE', `/team/${a.user.id}`)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, expect.any(Number)]);
    expect(answers.map((res) => res.status)).not.toEqual([200, 200]);
    const owners = await service.deps.db('people').where({ merchant_id: merchant, role: 'owner' }).select('id');
    expect(owners).toHaveLength(1);
  });

  it('owners invite too: the invitation is mailed, and the invited person joins this merchant', async () => {
    const email = uniqueEmail('invitee');
    const res = await asMember(service, people.owner!, 'POST', '/team/invitations', { body: { email, role: 'reviewer' } });
    expect(res.status).toBe(201);
    const link = linkIn(await latestMailTo(email, /invitation/));
    expect(link).toBe(res.body.accept_url);
    expect((await accept(tokenOf(link))).status).toBe(201);
    const joined = await signIn(service, email);
    expect([joined.merchant.id, joined.user.role]).toEqual([merchantId, 'reviewer']);
  });
});

describe('the audit log', () => {
  it('records every change with who, what, target and when, newest first, in pages; only the merchant\'s own entries', async () => {
    const merchant = await onboard(service);
    const owner = await member(service, merchant.id, 'owner');
    const viewer = await member(service, merchant.id, 'viewer');
    await asMember(service, owner, 'PATCH', `/team/${viewer.user.id}`, { body: { role: 'reviewer' } });
    await asMember(service, owner, 'DELETE', `/team/${viewer.user.id}`);

    const all = await asMember(service, owner, 'GET', '/audit-log?limit=100');
    expect(all.status).toBe(200);
    const actions = all.body.results.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 2)).toEqual(['member.removed', 'member.role_changed']);
    expect(actions).toEqual(expect.arrayContaining(['invitation.created', 'invitation.accepted', 'session.created']));
    expect(all.body.results[1]).toEqual({ id: expect.stringMatching(/^aud_/), actor: owner.user.id, actor_kind: 'person', actor_email: owner.email, action: 'member.role_changed', target: viewer.user.id, details: { email: viewer.email, from: 'viewer', to: 'reviewer' }, client_address: expect.stringMatching(/\d/), at: expect.any(String) });
    const adminInvitation = all.body.results.find((e: { action: string; details: { email?: string } }) => e.action === 'invitation.created' && e.details.email === owner.email);
    expect([adminInvitation.actor, adminInvitation.actor_kind]).toEqual(['admin', 'admin']);

    const first = await asMember(service, owner, 'GET', '/audit-log?limit=2');
    expect([first.body.results.length, first.body.has_more]).toEqual([2, true]);
    const second = await asMember(service, owner, 'GET', `/audit-log?limit=2&starting_after=${first.body.next_starting_after}`);
    expect(second.body.results[0].id).toBe(all.body.results[2].id);

    const otherOwner = await member(service, (await onboard(service)).id, 'owner');
    const foreign = await asMember(service, otherOwner, 'GET', `/audit-log?starting_after=${first.body.results[0].id}`);
    expect(foreign.status).toBe(404);
    const theirs = await asMember(service, otherOwner, 'GET', '/audit-log');
    expect(theirs.body.results.map((e: { id: string }) => e.id)).not.toContain(first.body.results[0].id);
  });
});
