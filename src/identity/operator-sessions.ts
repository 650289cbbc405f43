import { OPERATOR_SESSION_HOURS } from './operator-roles';
import { hashSecret } from '../crypto';
import type { AccountsContext } from './context';
import { recordAudit } from './audit';
import { presentUser } from './present';
import type { SignInBody } from './schemas';
import { csrfTokenOf } from './secrets';
import { authenticate, MERCHANT_SIGN_IN_ELSEWHERE, noteSessionUse, startSession } from './sessions';
import type { SignInThrottle } from './sign-in-throttle';
import { findLiveOperatorSessionUnscoped, revokeMerchantSession } from '../storage/sessions';
import { findOperatorByEmailUnscoped, type OperatorUserRow } from '../storage/people';

export const OPERATOR_SESSION_SECONDS = OPERATOR_SESSION_HOURS * 3600;

/** A live operator dashboard session: its person as stored now (a role change or a removal applies at once). */
export interface OperatorSession {
  user: OperatorUserRow;
  tokenHash: Buffer;
  csrfToken: string;
}

/** What the dashboard's session endpoints answer: the person and the CSRF token (send it as X-Dashboard-CSRF). */
export function presentOperatorSession(session: Pick<OperatorSession, 'user' | 'csrfToken'>) {
  return { user: presentUser(session.user), csrf: session.csrfToken };
}

/**
 * Signs one of the operator's people in: the merchant sign-in's checks (throttle, password, a code
 * used once; operators always have an authenticator), then a server-side session.
 */
export async function signInOperator(ctx: AccountsContext, throttle: SignInThrottle, clientAddress: string, body: SignInBody) {
  const user = await authenticate(ctx, throttle, clientAddress, body, (email) => findOperatorByEmailUnscoped(ctx.db, email), MERCHANT_SIGN_IN_ELSEWHERE);
  const token = await startSession(ctx, user, clientAddress, OPERATOR_SESSION_SECONDS);
  return { token, body: presentOperatorSession({ user, csrfToken: csrfTokenOf(token) }) };
}

/** The live operator session of a cookie's token, or null (unknown, expired, idle too long, revoked, a merchant's, or its person removed). */
export async function readOperatorSession(ctx: AccountsContext, token: string): Promise<OperatorSession | null> {
  const tokenHash = hashSecret(token);
  const found = await findLiveOperatorSessionUnscoped(ctx.db, tokenHash, ctx.config.sessionIdleSeconds.operator);
  if (!found) return null;
  await noteSessionUse(ctx, tokenHash, found.lastSeenAt);
  return { user: found.user, tokenHash, csrfToken: csrfTokenOf(token) };
}

/** Signs out: the session is revoked in the database, so a copy of its cookie is refused from then on by every API process. */
export async function signOutOperator(ctx: AccountsContext, session: OperatorSession): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    if (!(await revokeMerchantSession(trx, session.tokenHash))) return;
    await recordAudit(trx, { merchantId: null, actor: { kind: 'operator', id: session.user.id, email: session.user.email }, action: 'session.ended', target: session.user.id });
  });
}
