import { currentTotpCode } from '../../src/identity/secrets';
import { request, type JsonResponse } from './http';
import { PASSWORD, tokenOf, uniqueEmail } from './merchant-accounts';

type ServiceLike = { baseUrl: string; adminToken: string };

export const OPERATOR_ROLES = ['operator_admin', 'operator_reviewer', 'operator_viewer'];

/** One of the operator's people, signed in to the operator dashboard. */
export interface Operator {
  cookie: string;
  csrf: string;
  user: { id: string; email: string; role: string };
  email: string;
  /** The authenticator secret (tests act as the app). */
  secret: string;
}

/** The operator invites one of its people with the admin token (POST /admin/v1/operators/invitations). */
export function inviteOperator(service: ServiceLike, email: string, role: string) {
  return request(service.baseUrl, 'POST', '/admin/v1/operators/invitations', { token: service.adminToken, body: { email, role } });
}

/** Accepts an operator invitation as its page does: enrols an authenticator, then sends the password with its current code. Answers the secret. */
export async function acceptOperatorInvitation(service: ServiceLike, acceptUrl: string): Promise<string> {
  const token = tokenOf(acceptUrl);
  const enrolment = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/totp', { body: { token } });
  if (enrolment.status !== 201) throw new Error(`enrolment failed: ${enrolment.status} ${enrolment.text}`);
  const accepted = await request(service.baseUrl, 'POST', '/merchant/v1/invitations/accept', { body: { token, password: PASSWORD, totp_code: currentTotpCode(enrolment.body.secret) } });
  if (accepted.status !== 201) throw new Error(`acceptance failed: ${accepted.status} ${accepted.text}`);
  return enrolment.body.secret as string;
}

export function operatorSignInRequest(service: ServiceLike, body: Record<string, unknown>, address = randomAddress()) {
  return request(service.baseUrl, 'POST', '/dashboard/session', { body, headers: { 'x-forwarded-for': address } });
}

export const randomAddress = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

/** The dashboard session cookie a sign-in set, as a Cookie header value. */
export function dashboardCookieOf(res: JsonResponse): string {
  const match = /dashboard_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '');
  if (!match) throw new Error(`no dashboard session cookie in ${res.headers.get('set-cookie')}`);
  return `dashboard_session=${match[1]}`;
}

/**
 * Signs an operator in with a code `stepOffset` steps ahead: a code works once, and acceptance
 * spent the current step's, so the first sign-in after it takes the next step's.
 */
export async function signInOperator(service: ServiceLike, email: string, secret: string, stepOffset = 1): Promise<Pick<Operator, 'cookie' | 'csrf' | 'user'>> {
  const res = await operatorSignInRequest(service, { email, password: PASSWORD, totp_code: currentTotpCode(secret, stepOffset) });
  if (res.status !== 200) throw new Error(`operator sign-in failed: ${res.status} ${res.text}`);
  return { cookie: dashboardCookieOf(res), csrf: res.body.csrf, user: res.body.user };
}

/** One of the operator's people with the role: invited with the admin token, accepted with an authenticator, signed in. */
export async function operator(service: ServiceLike, role: string): Promise<Operator> {
  const email = uniqueEmail(role);
  const invited = await inviteOperator(service, email, role);
  if (invited.status !== 201) throw new Error(`operator invitation failed: ${invited.status} ${invited.text}`);
  const secret = await acceptOperatorInvitation(service, invited.body.accept_url);
  return { ...(await signInOperator(service, email, secret)), email, secret };
}

/** A call with the operator's dashboard session (and, unless `csrf: false`, its CSRF header). */
export function asOperator(service: ServiceLike, who: Pick<Operator, 'cookie' | 'csrf'> | null, method: string, path: string, options: { body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (who) headers.cookie = who.cookie;
  if (who && options.csrf !== false) headers['x-dashboard-csrf'] = who.csrf;
  return request(service.baseUrl, method, path, { headers, body: options.body });
}
