import { MERCHANT_SESSION_HOURS } from './merchant-roles';
import { hashSecret } from '../crypto';
import { MerchantForbiddenError, MerchantSessionError } from '../http/errors';
import { findLiveSessionUnscoped, insertMerchantSession, revokeMerchantSession, touchSessionUnscoped, type SessionMerchant } from '../storage/sessions';
import { findMerchant } from '../storage/merchants';
import { findAccountByEmailUnscoped, findMerchantUserByEmailUnscoped, type AccountRow, type MerchantUserRow } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import type { AccountsContext, Actor } from './context';
import { presentUser } from './present';
import type { SignInBody } from './schemas';
import { csrfTokenOf, decoyPasswordHash, newOneTimeToken, passwordMatches } from './secrets';
import { logThrottledSignIn, recordFailedSignIn } from './sign-in-audit';
import { SignInThrottledError, type SignInThrottle } from './sign-in-throttle';
import { factorRefusalText, proveAuthenticator } from './totp';

export const SESSION_SECONDS = MERCHANT_SESSION_HOURS * 3600;

/** A session's last use is written at most this often: idleness is measured in minutes, so a write per request would buy nothing. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** A live session: its person (as stored now, so a role change applies at once) and merchant. */
export interface MerchantSession {
  user: MerchantUserRow;
  merchant: SessionMerchant;
  tokenHash: Buffer;
  csrfToken: string;
  /** The client address of the request the session came with (the session guard sets it), for the audit log. */
  address?: string;
}

/** The person of a session as the actor of a change (their email names them as a decider or a refund's requester), with the request's client address. */
export const sessionActor = (session: Pick<MerchantSession, 'user' | 'address'>): Extract<Actor, { kind: 'user' }> => ({ kind: 'user', id: session.user.id, email: session.user.email, ...(session.address ? { address: session.address } : {}) });

export const WRONG_CREDENTIALS = 'Email or password is wrong.';
export const WRONG_DASHBOARD = 'This account signs in on the other dashboard.';

/** Where the people of the other dashboard sign in: the hint of a sign-in on the wrong one. */
export interface SignInElsewhere {
  hint: string;
}
export const OPERATOR_SIGN_IN_ELSEWHERE: SignInElsewhere = { hint: "The operator's people sign in at /dashboard/login." };
export const MERCHANT_SIGN_IN_ELSEWHERE: SignInElsewhere = { hint: "A merchant's people sign in at /merchant/login." };

/**
 * The checks every sign-in makes, merchant's or operator's: the throttle first (an attempt reserved
 * before any password work), then the password (verified against a decoy hash when no account has
 * the email, so timing tells nothing), then the authenticator code when the person enrolled one,
 * spent so it works once. `find` looks the person up in the sign-in's scope. A right password
 * forgets the account's failures; a wrong one, or a wrong code, is audited.
 */
export async function authenticate<Row extends AccountRow>(ctx: AccountsContext, throttle: SignInThrottle, clientAddress: string, body: SignInBody, find: (email: string) => Promise<Row | undefined>, elsewhere: SignInElsewhere): Promise<Row> {
  const keys = throttle.keysFor(body.email, clientAddress);
  const reached = await throttle.reserve(keys).catch((error: unknown) => {
    throw error instanceof SignInThrottledError ? logThrottledSignIn(ctx, body.email, clientAddress, error) : error;
  });
  const user = await find(body.email);
  // An account of the other dashboard is checked like one of this one (the same hash work), so the
  // answer tells where to sign in only to someone who knows its password.
  const other = user ? undefined : await findAccountByEmailUnscoped(ctx.db, body.email);
  const attempt = { email: body.email, address: clientAddress, account: user ?? other };
  const passwordOk = await passwordMatches(user?.password_hash ?? other?.password_hash ?? (await decoyPasswordHash()), body.password);
  if (other && passwordOk) throw await recordFailedSignIn(ctx, attempt, 'password', reached, new MerchantSessionError(WRONG_DASHBOARD, elsewhere.hint));
  if (!user || !passwordOk) throw await recordFailedSignIn(ctx, attempt, 'password', reached, new MerchantSessionError(WRONG_CREDENTIALS));
  if (user.totp_secret_sealed) {
    const check = await proveAuthenticator(ctx, ctx.db, user, user.totp_secret_sealed, body);
    // No proof at all is not a guess: it is not counted (the places it reserved are given back).
    if (check === 'missing') {
      await throttle.release(keys);
      throw new MerchantSessionError(...factorRefusalText(check));
    }
    if (check !== 'accepted') throw await recordFailedSignIn(ctx, attempt, 'totp_code', reached, new MerchantSessionError(...factorRefusalText(check)));
  }
  await throttle.succeed(keys);
  return user;
}

/** Starts a server-side session for the person and records it; answers the session's token (for the cookie). */
export async function startSession(ctx: AccountsContext, user: AccountRow, clientAddress: string, seconds: number): Promise<string> {
  const { token, hash } = newOneTimeToken();
  await ctx.db.transaction(async (trx) => {
    await insertMerchantSession(trx, { token_hash: hash, user_id: user.id, expires_at: new Date(Date.now() + seconds * 1000) });
    await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user, clientAddress), action: 'session.created', target: user.id, details: { client_address: clientAddress } });
  });
  return token;
}

/**
 * Signs a merchant's person in (authenticate). Owners of production merchants must have enrolled
 * an authenticator. Answers the session's token (for the cookie) and the answer's body.
 */
export async function signIn(ctx: AccountsContext, throttle: SignInThrottle, clientAddress: string, body: SignInBody) {
  const user = await authenticate(ctx, throttle, clientAddress, body, (email) => findMerchantUserByEmailUnscoped(ctx.db, email), OPERATOR_SIGN_IN_ELSEWHERE);
  const merchant = await findMerchant(ctx.db, user.merchant_id);
  if (!merchant) throw new MerchantSessionError(WRONG_CREDENTIALS);
  if (mustEnrolAuthenticator(user, merchant)) {
    throw new MerchantForbiddenError(
      'Owners of production accounts sign in with an authenticator app.',
      'Enrol one from a password reset link (POST /merchant/v1/password-resets, then the page the mail links to), then sign in with totp_code.',
    );
  }
  const token = await startSession(ctx, user, clientAddress, SESSION_SECONDS);
  const sessionMerchant: SessionMerchant = { id: merchant.id, name: merchant.name, environment: merchant.environment };
  return { token, body: presentSession({ user, merchant: sessionMerchant, csrfToken: csrfTokenOf(token) }) };
}

/**
 * An owner of a production account acts with an authenticator: the sign-in refuses one without,
 * and the role guard refuses the session of a person promoted to owner since, until they enrol.
 */
export function mustEnrolAuthenticator(user: MerchantUserRow, merchant: Pick<SessionMerchant, 'environment'>): boolean {
  return merchant.environment === 'production' && user.role === 'owner' && !user.totp_secret_sealed;
}

/** What the sign-in and GET /me answer. */
export function presentSession(session: Pick<MerchantSession, 'user' | 'merchant' | 'csrfToken'>) {
  return { user: presentUser(session.user), merchant: session.merchant, csrf_token: session.csrfToken, totp_enrolment_required: mustEnrolAuthenticator(session.user, session.merchant) };
}

/** The live session of a cookie's token, or null (unknown, expired, idle too long, revoked, or its person removed). */
export async function readSession(ctx: AccountsContext, token: string): Promise<MerchantSession | null> {
  const tokenHash = hashSecret(token);
  const found = await findLiveSessionUnscoped(ctx.db, tokenHash, ctx.config.sessionIdleSeconds.merchant);
  if (!found) return null;
  await noteSessionUse(ctx, tokenHash, found.lastSeenAt);
  return { user: found.user, merchant: found.merchant, tokenHash, csrfToken: csrfTokenOf(token) };
}

/** Keeps a session in use alive past its idle timeout, writing its last use at most once a minute. */
export async function noteSessionUse(ctx: AccountsContext, tokenHash: Buffer, lastSeenAt: Date): Promise<void> {
  if (Date.now() - lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) await touchSessionUnscoped(ctx.db, tokenHash);
}

/** Signs out: the session is revoked in the database, so a copy of its cookie is refused from then on. */
export async function signOut(ctx: AccountsContext, session: MerchantSession): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    if (!(await revokeMerchantSession(trx, session.tokenHash))) return;
    await recordAudit(trx, { merchantId: session.merchant.id, actor: sessionActor(session), action: 'session.ended', target: session.user.id });
  });
}
