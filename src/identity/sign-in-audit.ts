import type { ApiError } from '../http/errors';
import type { AccountRow } from '../storage/people';
import { recordAudit } from './audit';
import type { AccountsContext } from './context';
import type { SignInLimit, SignInThrottledError } from './sign-in-throttle';

/** A sign-in as the audit and the logs name it: the email tried, the person it belongs to (if any), the client address. */
export interface SignInAttempt {
  email: string;
  address: string;
  account: AccountRow | undefined;
}

/**
 * A failed sign-in, in the audit log and in a log line: a merchant person's in their merchant's log,
 * an operator's or an unknown email's in the operator's. When the failure filled a limit, the
 * throttle engages from now on, and that is recorded too (once per limit and window).
 */
export async function recordFailedSignIn(ctx: AccountsContext, attempt: SignInAttempt, reason: 'password' | 'totp_code', reached: SignInLimit[], error: ApiError): Promise<ApiError> {
  const { email, address, account } = attempt;
  const where = { merchantId: account?.merchant_id ?? null, actor: { kind: 'anonymous' as const, email, address }, target: account?.id ?? null };
  ctx.logger.warn({ email, person_id: account?.id ?? null, client_address: address, reason }, 'sign-in failed');
  await ctx.db.transaction(async (trx) => {
    await recordAudit(trx, { ...where, action: 'sign_in.failed', details: { email, reason } });
    for (const limit of reached) {
      ctx.logger.warn({ email, person_id: account?.id ?? null, client_address: address, limit }, 'sign-in throttle engaged');
      await recordAudit(trx, { ...where, action: 'sign_in.throttled', details: { email, limit } });
    }
  });
  return error;
}

/** A sign-in refused by the throttle: a log line only (the engagement was audited once; a burst of refusals is not). */
export function logThrottledSignIn(ctx: AccountsContext, email: string, address: string, error: SignInThrottledError): SignInThrottledError {
  ctx.logger.info({ email, client_address: address, limit: error.limit, retry_after_seconds: error.retryAfterSeconds }, 'sign-in refused: throttled');
  return error;
}
