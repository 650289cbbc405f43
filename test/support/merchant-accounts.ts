import { randomUUID } from 'node:crypto';
import { request, type JsonResponse } from './http';

type ServiceLike = { baseUrl: string; adminToken: string };

export const PASSWORD = 'correct horse battery staple';

/** A unique email per call. */
export const uniqueEmail = (label = 'person') => `${label}-${randomUUID()}@example.com`;

export function tokenOf(acceptUrl: string): string {
  return new URL(acceptUrl).searchParams.get('token')!;
}

/** The operator invites a person (POST /admin/v1/merchants/{id}/invitations). */
export function adminInvite(service: ServiceLike, merchantId: string, email: string, role: string) {
  return request(service.baseUrl, 'POST', `/admin/v1/merchants/${merchantId}/invitations`, { token: service.adminToken, body: { email, role } });
}

export interface SignedIn {
  cookie: string;
  csrf: string;
  user: { id: string; email: string; role: string };
  merchant: { id: string; name: string; environment: string };
  email: string;
}

export function signInRequest(service: ServiceLike, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return request(service.baseUrl, 'POST', '/merchant/v1/session', { body, headers });
}

/** The session cookie a sign-in set, as a Cookie header value. */
export function sessionCookieOf(res: JsonResponse): string {
  const header = res.headers.get('set-cookie') ?? '';
  const match = /merchant_session=([^;]*)/.exec(header);
  if (!match) throw new Error(`no session cookie in ${header}`);
  return `merchant_session=${match[1]}`;
}

export async function signIn(service: ServiceLike, email: string, password = PASSWORD, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const res = await signInRequest(service, { email, password, ...extra }, { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return { cookie: sessionCookieOf(res), csrf: res.body.csrf_token, user: res.body.user, merchant: res.body.merchant, email };
}

/** A person of the merchant with the role, invited by the operator, accepted and signed in. */
export async function member(service: ServiceLike, merchantId: string, role: string): Promise<SignedIn> {
  const email = uniqueEmail(role);
  const invited = await adminInvite(service, merchantId, email, role);
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${invited.text}`);
  const accepted = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token: tokenOf(invited.body.accept_url), password: PASSWORD } });
  if (accepted.status !== 201) throw new Error(`acceptance failed: ${accepted.status} ${accepted.text}`);
  return signIn(service, email);
}

/** A call under /merchant/v1 with the session's cookie and (unless `csrf: false`) its CSRF header. */
export function asMember(service: ServiceLike, who: Pick<SignedIn, 'cookie' | 'csrf'> | null, method: string, path: string, options: { body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (who) headers.cookie = who.cookie;
  if (who && options.csrf !== false) headers['x-csrf-token'] = who.csrf;
  return request(service.baseUrl, method, `/merchant/v1${path}`, { headers, body: options.body });
}

export const ALL_ROLES = ['owner', 'developer', 'reviewer', 'viewer'];
export const errorWithHint = { error: expect.any(String), hint: expect.any(String), request_id: expect.any(String) };

/** A dashboard route as the guard tests call it: `path()` may set up a fresh target per call. */
export interface GuardedRoute {
  name: string;
  method: string;
  path: () => Promise<string> | string;
  body?: unknown;
  allowed: string[];
  ok: number;
  /** What the 403 says the role does not allow. */
  what: string;
}

/**
 * The session and role guards of one route: 401 without a session, without the CSRF header on a
 * change, and for a removed person's session; 403 {error, hint} for every role below the route's;
 * every allowed role passes.
 */
export async function expectGuarded(service: ServiceLike, merchantId: string, people: Record<string, SignedIn>, route: GuardedRoute): Promise<void> {
  const path = await route.path();
  const none = await asMember(service, null, route.method, path, { body: route.body });
  expect([none.status, none.body]).toEqual([401, errorWithHint]);
  if (route.method !== 'GET') {
    const noCsrf = await asMember(service, people.owner!, route.method, path, { body: route.body, csrf: false });
    expect([noCsrf.status, noCsrf.body]).toEqual([401, { ...errorWithHint, error: 'Missing or wrong CSRF token.' }]);
  }
  for (const role of ALL_ROLES.filter((r) => !route.allowed.includes(r))) {
    const res = await asMember(service, people[role]!, route.method, path, { body: route.body });
    expect([role, res.status, res.body]).toEqual([role, 403, { error: `Your role (${role}) does not allow ${route.what}.`, hint: `Only ${route.allowed.join(', ')} may; ask an owner of the account to change your role.`, request_id: expect.any(String) }]);
  }
  const removed = await member(service, merchantId, route.allowed[route.allowed.length - 1]!);
  expect((await asMember(service, people.owner!, 'DELETE', `/team/${removed.user.id}`)).status).toBe(200);
  const afterRemoval = await asMember(service, removed, route.method, path, { body: route.body });
  expect([afterRemoval.status, afterRemoval.body]).toEqual([401, { ...errorWithHint, error: 'Sign in first.' }]);
  for (const role of route.allowed) {
    const target = role === route.allowed[0] ? path : await route.path();
    const res = await asMember(service, people[role]!, route.method, target, { body: route.body });
    expect([role, res.status, res.text]).toEqual([role, route.ok, res.text]);
  }
}

/** A describe block with one test per route of `expectGuarded`; `env` is read when the tests run (after beforeAll). */
export function describeGuards(what: string, routes: GuardedRoute[], env: () => { service: ServiceLike; merchantId: string; people: Record<string, SignedIn> }): void {
  describe(`${what}: session, CSRF and role guards`, () => itGuardsEach(routes, env));
}

function itGuardsEach(routes: GuardedRoute[], env: () => { service: ServiceLike; merchantId: string; people: Record<string, SignedIn> }): void {
  it.each(routes.map((route) => [route.name, route] as const))(
    '%s: 401 without a session or CSRF header or for a removed person; 403 {error, hint} below the role; allowed roles pass',
    async (_name, route) => {
      const { service, merchantId, people } = env();
      await expectGuarded(service, merchantId, people, route);
    },
  );
}

/** Every item of a paged /merchant/v1 list, walked `limit` at a time with its cursor (`key` names what each item is listed by). */
export async function walkPages(service: ServiceLike, who: SignedIn, path: string, limit: number, key: string): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const page = await asMember(service, who, 'GET', `${path}?limit=${limit}${after ? `&starting_after=${after}` : ''}`);
    expect([page.status, page.body.results.length <= limit]).toEqual([200, true]);
    seen.push(...page.body.results.map((item: Record<string, string>) => item[key]));
    after = page.body.next_starting_after;
    expect(after === null).toBe(!page.body.has_more);
  } while (after);
  return seen;
}
