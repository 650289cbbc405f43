import type { Request, RequestHandler, Response } from 'express';
import { hashesEqual } from '../crypto';
import { PERMISSION_NAMES, roleMay, rolesWith, type MerchantPermission } from './merchant-roles';
import { MerchantForbiddenError, MerchantSessionError } from '../http/errors';
import { throttledAddress } from '../http/admin-token-throttle';
import type { AccountRouteLimit } from './account-route-limit';
import type { AccountsContext } from './context';
import { mustEnrolAuthenticator, readSession, SESSION_SECONDS, type MerchantSession } from './sessions';

declare module 'express-serve-static-core' {
  interface Request {
    /** The merchant dashboard session of the request (requireMerchantSession); every read and write is scoped to its merchant. */
    merchantSession?: MerchantSession;
  }
}

export const MERCHANT_SESSION_COOKIE = 'merchant_session';
export const MERCHANT_CSRF_HEADER = 'X-CSRF-Token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** HttpOnly, SameSite=Strict, and Secure outside development (local http://localhost has no TLS). */
export function setSessionCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(MERCHANT_SESSION_COOKIE, token, { httpOnly: true, secure, sameSite: 'strict', path: '/', maxAge: SESSION_SECONDS * 1000 });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(MERCHANT_SESSION_COOKIE, { httpOnly: true, secure, sameSite: 'strict', path: '/' });
}

/**
 * Every /merchant/v1 route past the sign-in: a live session (its cookie's token hashed and looked
 * up, so a revoked session or a removed person is refused at once) and, for a change, the
 * X-CSRF-Token header carrying the session's csrf_token. Either missing is 401. Sets
 * `req.merchantSession`, whose merchant scopes everything the route reads or writes.
 */
export function requireMerchantSession(ctx: AccountsContext): RequestHandler {
  return async (req, _res, next) => {
    try {
      const session = await sessionOfRequest(ctx, req);
      if (!session) throw new MerchantSessionError('Sign in first.', 'Sign in with POST /merchant/v1/session; the session cookie then authenticates every call.');
      if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.header(MERCHANT_CSRF_HEADER), session.csrfToken)) {
        throw new MerchantSessionError('Missing or wrong CSRF token.', `Send the session's csrf_token in the ${MERCHANT_CSRF_HEADER} header with every change.`);
      }
      req.merchantSession = { ...session, address: req.ip };
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The live session the request's cookie names, or null (no cookie, or a session that ended). */
export async function sessionOfRequest(ctx: AccountsContext, req: Request): Promise<MerchantSession | null> {
  const token = cookieValue(req, MERCHANT_SESSION_COOKIE);
  return token && token.length <= 200 ? readSession(ctx, token) : null;
}

/**
 * The role guard: a call beyond the person's role is 403 with a hint naming the roles that may.
 * An owner of a production account without an authenticator (promoted since their sign-in) may
 * only enrol one (the /me routes need no permission).
 */
export function allow(permission: MerchantPermission): RequestHandler {
  return (req, _res, next) => {
    const { user, merchant } = merchantSessionOf(req);
    if (mustEnrolAuthenticator(user, merchant)) {
      return next(new MerchantForbiddenError('Enrol an authenticator first.', 'Owners of production accounts act with an authenticator app: enrol one with POST /merchant/v1/me/totp and confirm it with POST /merchant/v1/me/totp/confirm.'));
    }
    const { role } = user;
    if (roleMay(role, permission)) return next();
    next(new MerchantForbiddenError(`Your role (${role}) does not allow ${PERMISSION_NAMES[permission]}.`, `Only ${rolesWith(permission).join(', ')} may; ask an owner of the account to change your role.`));
  };
}

/** The session set by requireMerchantSession; a route without it is a wiring bug, not a client error. */
export function merchantSessionOf(req: Request): MerchantSession {
  if (!req.merchantSession) throw new Error('requireMerchantSession did not run for this route');
  return req.merchantSession;
}

function csrfMatches(presented: string | undefined, expected: string): boolean {
  return !!presented && hashesEqual(Buffer.from(presented), Buffer.from(expected));
}

/** A cookie of the request by name (no cookie parser: the dashboards read one cookie each). */
export function cookieValue(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

/** The account routes' per-address limit, put first on every account route without a session. */
export function limitedByAddress(limit: AccountRouteLimit): RequestHandler {
  return (req, _res, next) => {
    limit.admit(throttledAddress(req.ip)).then(() => next(), next);
  };
}
