/**
 * Merchant accounts: the merchant's people, their sessions and roles (operator spec, section 7).
 * A /merchant/v1 route of the dashboard is added as
 *
 *   router.post('/reviews/:id/approve', accounts.requireSession, allow('decide_reviews'), handler)
 *
 * and reads its merchant from `merchantSessionOf(req).merchant.id`: the session decides the scope.
 */
import type { AppDeps } from '../app-deps';
import type { AccountsContext } from './context';
import { createMailer } from './mailer';
import { requireMerchantSession } from './middleware';
import { SignInThrottle } from './sign-in-throttle';

export { allow, merchantSessionOf, requireMerchantSession, MERCHANT_CSRF_HEADER, MERCHANT_SESSION_COOKIE } from './middleware';
export type { MerchantSession } from './sessions';
export type { AccountsContext } from './context';
export { recordAudit, type AuditAction } from './audit';

/** What the merchant dashboard's routes are built from. */
export interface MerchantAccounts {
  ctx: AccountsContext;
  throttle: SignInThrottle;
  /** The session guard every /merchant/v1 route past the sign-in puts first. */
  requireSession: ReturnType<typeof requireMerchantSession>;
  secureCookies: boolean;
}

/** Built once per app: the services' context, the sign-in throttle and the session guard. */
export function createMerchantAccounts(deps: AppDeps): MerchantAccounts {
  const ctx: AccountsContext = { db: deps.db, sealer: deps.sealer, logger: deps.logger, mailer: createMailer(deps.config, deps.logger), config: deps.config };
  return {
    ctx,
    throttle: new SignInThrottle(deps.db, deps.config.merchantSignInThrottle),
    requireSession: requireMerchantSession(ctx),
    /** Session cookies are Secure outside development (local http://localhost has no TLS). */
    secureCookies: deps.config.nodeEnv !== 'development',
  };
}
