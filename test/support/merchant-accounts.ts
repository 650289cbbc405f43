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
export function asMember(service: ServiceLike, who: Pick<SignedIn, 'cookie' | 'csrf'> | null, method: string, path: string, options: { body?: unknown; csrf?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (who) headers.cookie = who.cookie;
  if (who && options.csrf !== false) headers['x-csrf-token'] = who.csrf;
  return request(service.baseUrl, method, `/merchant/v1${path}`, { headers, body: options.body });
}
