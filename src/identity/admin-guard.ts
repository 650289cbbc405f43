import type { Request, RequestHandler, Response } from 'express';
import { hashesEqual } from '../crypto';
import { bearerCredential } from '../http/auth';
import { AdminAuthenticationError } from '../http/errors';
import { heldBackBodyError } from '../http/json-body';
import type { AccountsContext, AdminActor } from './context';
import { cookieValue } from './middleware';
import { OPERATOR_SESSION_SECONDS, readOperatorSession, type OperatorSession } from './operator-sessions';

declare module 'express-serve-static-core' {
  interface Request {
    /** The operator dashboard session of an admin API call (the admin guard): the person acting; unset for bearer-token calls (automation). */
    operatorSession?: OperatorSession;
  }
}
export const SESSION_COOKIE
 = 'dashboard_session';
export const CSRF_HEADER = 'X-Dashboard-CSRF';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const SIGN_IN_HINT = 'Sign in at /dashboard/login (email, password and authenticator code), or send Authorization: Bearer <ADMIN_TOKEN>.';

/** The operator dashboard's answer without a session (its session routes and its non-public assets). */
export const notSignedInOperator = () => new AdminAuthenticationError('Not signed in.', SIGN_IN_HINT);

/** HttpOnly, SameSite=Strict, and Secure outside development (local http://localhost has no TLS). */
export function setDashboardCookie(res: Response, token: string, secure: boolean): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, secure, sameSite: 'strict', path: '/', maxAge: OPERATOR_SESSION_SECONDS * 1000 });
}

export function clearDashboardCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure, sameSite: 'strict', path: '/' });
}

/**
 * The request's live operator session, or null: the cookie's token is hashed and looked up, so a
 * signed-out session or a removed person is refused at once, by every API process.
 */
export async function dashboardSessionOf(ctx: AccountsContext, req: Request): Promise<OperatorSession | null> {
  const token = cookieValue(req, SESSION_COOKIE);
  return token && token.length <= 200 ? readOperatorSession(ctx, token) : null;
}

/** A state-changing call must echo the session's CSRF token in a header: a cross-site page can neither read it nor set custom headers. */
export function csrfOk(req: Request, session: OperatorSession): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const presented = req.header(CSRF_HEADER);
  return !!presented && hashesEqual(Buffer.from(presented), Buffer.from(session.csrfToken));
}

/**
 * The admin API's guard, in front of every /admin/v1 route: the bearer admin token (automation:
 * scripts, curl), checked by `bearer`, or an operator's dashboard session with its CSRF header on
 * a change. Anything else is the admin API's 401. What the session's role may do is each route's
 * own declaration (`operator(permission)`, src/identity/route-access.ts), checked on the route
 * Express matched.
 */
export function requireAdminOrSession(ctx: AccountsContext, bearer: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    if (bearerCredential(req) !== null || req.headers.authorization) {
      return bearer(req, res, (error?: unknown) => {
        if (error === undefined) req.adminAuthentication = 'token';
        next(error);
      });
    }
    try {
      const session = await dashboardSessionOf(ctx, req);
      if (!session) return next(new AdminAuthenticationError('Admin token not valid.', SIGN_IN_HINT));
      if (!csrfOk(req, session)) return next(new AdminAuthenticationError('Missing or wrong CSRF token.', `Send the session's csrf in the ${CSRF_HEADER} header with every change.`));
      req.operatorSession = session;
      req.adminAuthentication = 'session';
      next(heldBackBodyError(req)); // a body that is not JSON: 400, now that the session passed
    } catch (error) {
      next(error);
    }
  };
}

/** Who an admin API call acts as, for the merchant audit log: the signed-in operator, or the admin token (automation). */
export function adminActorOf(req: Request): AdminActor {
  const user = req.operatorSession?.user;
  const address = req.ip ? { address: req.ip } : {};
  return user ? { kind: 'operator', id: user.id, email: user.email, ...address } : { kind: 'admin', ...address };
}
