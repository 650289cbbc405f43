import { MERCHANT_SESSION_HOURS } from './merchant-roles';
import { hashSecret } from '../crypto';
import { MerchantForbiddenError, MerchantSessionError } from '../http/errors';
import { findLiveSessionUnscoped, insertMerchantSession, revokeMerchantSession, type SessionMerchant } from '../storage/sessions';
import { findMerchant } from '../storage/merchants';
import { findMerchantUserByEmailUnscoped, type AccountRow, type MerchantUserRow } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import type { AccountsContext } from './context';
import { presentUser } from './present';
import type { SignInBody } from './schemas';
import { csrfTokenOf, decoyPasswordHash, newOneTimeToken, passwordMatches } from './secrets';
import { logThrottledSignIn, recordFailedSignIn } from './sign-in-audit';
import { SignInThrottledError, type SignInThrottle } from './sign-in-throttle';
import { spendTotpCode, TOTP_CODE_USED, TOTP_CODE_USED_HINT, TOTP_CODE_WRONG } from './totp';

export const SESSION_SECONDS = MERCHANT_SESSION_HOURS * 3600;

/** A live session: its person (as stored now, so a role change applies at once) and merchant. */
export interface MerchantSession {
  user: MerchantUserRow;
  merchant: SessionMerchant;
  tokenHash: Buffer;
  csrfToken: string;
}

export const WRONG_CREDENTIALS = 'Email or password is wrong.';

/**
 * The checks every sign-in makes, merchant's or operator's: the throttle first (an attempt reserved
 * before any password work), then the password (verified against a decoy hash when no account has
 * the email, so timing tells nothing), then the authenticator code when the person enrolled one,
 * spent so it works once. `find` looks the person up in the sign-in's scope. A right password
 * forgets the account's failures; a wrong one, or a wrong code, is audited.
 */
export async function authenticate<Row extends AccountRow>(ctx: AccountsContext, throttle: SignInThrottle, clientAddress: string, body: SignInBody, find: (email: string) => Promise<Row | undefined>): Promise<Row> {
  const keys = throttle.keysFor(body.email, clientAddress);
  const reached = await throttle.reserve(keys).catch((error: unknown) => {
    throw error instanceof SignInThrottledError ? logThrottledSignIn(ctx, body.email, clientAddress, error) : error;
  });
  const user = await find(body.email);
  const attempt = { email: body.email, address: clientAddress, account: user };
  const passwordOk = await passwordMatches(user?.password_hash ?? (await decoyPasswordHash()), body.password);
  if (!user || !passwordOk) throw await recordFailedSignIn(ctx, attempt, 'password', reached, new MerchantSessionError(WRONG_CREDENTIALS));
  if (user.totp_secret_sealed) {
    if (body.totp_code === undefined) {
      await throttle.release(keys);
      throw new MerchantSessionError('Authenticator code required.', 'Send totp_code: the six-digit code of your authenticator app.');
    }
    const check = await spendTotpCode(ctx, ctx.db, user.id, user.totp_secret_sealed, body.totp_code);
    if (check === 'used') throw await recordFailedSignIn(ctx, attempt, 'totp_code', reached, new MerchantSessionError(TOTP_CODE_USED, TOTP_CODE_USED_HINT));
    if (check === 'wrong') throw await recordFailedSignIn(ctx, attempt, 'totp_code', reached, new MerchantSessionError(TOTP_CODE_WRONG));
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
  const user = await authenticate(ctx, throttle, clientAddress, body, (email) => findMerchantUserByEmailUnscoped(ctx.db, email));
  const merchant = await findMerchant(ctx.db, user.merchant_id);
  if (!merchant) throw new MerchantSessionError(WRONG_CREDENTIALS);
  if (merchant.environment === 'production' && user.role === 'owner' && !user.totp_secret_sealed) {
    throw new MerchantForbiddenError(
      'Owners of production accounts sign in with an authenticator app.',
      'Enrol one from a password reset link (POST /merchant/v1/password-resets, then the page the mail links to), then sign in with totp_code.',
    );
  }
  const token = await startSession(ctx, user, clientAddress, SESSION_SECONDS);
  const sessionMerchant: SessionMerchant = { id: merchant.id, name: merchant.name, environment: merchant.environment };
  return { token, body: { user: presentUser(user), merchant: sessionMerchant, csrf_token: csrfTokenOf(token) } };
}

/** The live session of a cookie's token, or null (unknown, expired, revoked, or its person removed). */
export async function readSession(ctx: AccountsContext, token: string): Promise<MerchantSession | null> {
  const tokenHash = hashSecret(token);
  const found = await findLiveSessionUnscoped(ctx.db, tokenHash);
  return found ? { ...found, tokenHash, csrfToken: csrfTokenOf(token) } : null;
}

/** Signs out: the session is revoked in the database, so a copy of its cookie is refused from then on. */
export async function signOut(ctx: AccountsContext, session: MerchantSession): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    if (!(await revokeMerchantSession(trx, session.tokenHash))) return;
    await recordAudit(trx, { merchantId: session.merchant.id, actor: { kind: 'user', id: session.user.id }, action: 'session.ended', target: session.user.id });
  });
}
