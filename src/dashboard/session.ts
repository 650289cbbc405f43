import { createHmac, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { hashesEqual, hashSecret } from '../crypto';
import { bearerCredential } from '../http/auth';
import { AdminAuthenticationError } from '../http/errors';
import { heldBackBodyError } from '../http/json-body';

declare module 'express-serve-static-core' {
  interface Request {
    /** Who is acting through the dashboard (the name given at sign-in); unset for bearer-token calls. */
    operator?: string;
  }
}

export const SESSION_COOKIE = 'dashboard_session';
export const CSRF_HEADER = 'X-Dashboard-CSRF';
const SESSION_SECONDS = 8 * 60 * 60;
const MAX_NAME = 80;

export interface Session {
  name: string;
  csrf: string;
}

/** Where signed-out sessions are kept: shared by every API process (PostgreSQL); tests may pass their own. */
export interface SessionRevocations {
  isRevoked(sessionId: string): Promise<boolean>;
  revoke(sessionId: string, expiresAt: Date): Promise<void>;
}

/** A cookie whose signature and expiry hold, with the random id that signing out revokes. */
interface SignedSession {
  session: Session;
  id: string;
  expiresAt: Date;
}

/**
 * Dashboard sessions: the cookie carries the reviewer's name, an expiry and a random id, signed
 * with a key derived from the admin token (so changing the token signs everyone out). Signing out
 * revokes the id in PostgreSQL until the cookie would have expired, so a copy of the cookie is
 * refused afterwards by every API process; every call made with a cookie pays one primary-key
 * lookup for that, bearer-token calls none. The CSRF token is derived from the cookie and must
 * come back in a header on every state-changing call: a cross-site page can neither read it nor
 * set custom headers, and SameSite=Strict keeps the cookie off cross-site requests in the first
 * place.
 */
export class DashboardSessions {
  private readonly key: Buffer;

  constructor(
    private readonly adminToken: string,
    private readonly secureCookies: boolean,
    private readonly revocations: SessionRevocations,
  ) {
    this.key = createHmac('sha256', 'dashboard-session').update(adminToken).digest();
  }

  private sign(value: string): string {
    return createHmac('sha256', this.key).update(value).digest('base64url');
  }

  tokenMatches(presented: string): boolean {
    return hashesEqual(hashSecret(presented), hashSecret(this.adminToken));
  }

  /** Signs in: sets the session cookie and answers the session (with its CSRF token). */
  start(res: Response, name: string): Session {
    const payload = Buffer.from(JSON.stringify({ n: name.slice(0, MAX_NAME), e: Math.floor(Date.now() / 1000) + SESSION_SECONDS, r: randomBytes(9).toString('base64url') })).toString('base64url');
    const value = `${payload}.${this.sign(payload)}`;
    res.cookie(SESSION_COOKIE, value, { httpOnly: true, secure: this.secureCookies, sameSite: 'strict', path: '/', maxAge: SESSION_SECONDS * 1000 });
    return { name, csrf: this.sign(`csrf:${value}`) };
  }

  /**
   * Signs out the request's session (its CSRF header required): revokes it for every API process
   * and clears the cookie. False when there is no session to end.
   */
  async end(req: Request, res: Response): Promise<boolean> {
    const signed = this.verify(req);
    if (!signed || !this.csrfOk(req, signed.session) || (await this.revocations.isRevoked(signed.id))) return false;
    await this.revocations.revoke(signed.id, signed.expiresAt);
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: this.secureCookies, sameSite: 'strict', path: '/' });
    return true;
  }

  /** The request's valid, unexpired session that was not signed out, or null. */
  async read(req: Request): Promise<Session | null> {
    const signed = this.verify(req);
    if (!signed || (await this.revocations.isRevoked(signed.id))) return null;
    return signed.session;
  }

  /** The cookie's session when its signature and expiry hold (no database work: a forged cookie costs no lookup). */
  private verify(req: Request): SignedSession | null {
    const value = cookieValue(req, SESSION_COOKIE);
    if (!value) return null;
    const [payload, signature] = value.split('.');
    if (!payload || !signature || !hashesEqual(Buffer.from(signature), Buffer.from(this.sign(payload)))) return null;
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { n?: unknown; e?: unknown; r?: unknown };
      if (typeof data.n !== 'string' || typeof data.e !== 'number' || typeof data.r !== 'string' || data.e * 1000 < Date.now()) return null;
      return { session: { name: data.n, csrf: this.sign(`csrf:${value}`) }, id: data.r, expiresAt: new Date(data.e * 1000) };
    } catch {
      return null;
    }
  }

  /** A state-changing call must echo the session's CSRF token in a header. */
  csrfOk(req: Request, session: Session): boolean {
    if (['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return true;
    const presented = req.header(CSRF_HEADER);
    return !!presented && hashesEqual(Buffer.from(presented), Buffer.from(session.csrf));
  }

  /**
   * The admin API's guard: the bearer admin token (scripts, curl), checked by `bearer`, or a
   * dashboard session with its CSRF header. Anything else is the admin API's 401.
   */
  requireAdminOrSession(bearer: RequestHandler): RequestHandler {
    return async (req, res, next) => {
      if (bearerCredential(req) !== null || req.headers.authorization) return bearer(req, res, next);
      try {
        const session = await this.read(req);
        if (!session) return next(new AdminAuthenticationError());
        if (!this.csrfOk(req, session)) return next(new AdminAuthenticationError('Missing or wrong CSRF token.'));
        req.operator = session.name;
        next(heldBackBodyError(req)); // a body that is not JSON: 400, now that the session passed
      } catch (error) {
        next(error);
      }
    };
  }
}

function cookieValue(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}
