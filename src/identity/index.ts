/**
 * Merchant accounts: the merchant's people, their sessions and roles (operator spec, section 7).
 * A /merchant/v1 route of the dashboard is added with its access declared (src/identity/route-access.ts):
 *
 *   route(router, 'post', '/reviews/:id/approve', merchant(accounts.requireSession, 'decide_reviews'), handler)
 *
 * and reads its merchant from `merchantSessionOf(req).merchant.id`: the session decides the scope.
 */
import type { AppDeps } from '../app-deps';
import { AccountRouteLimit } from './account-route-limit';
import type { AccountsContext } from './context';
import { createMailer } from './mailer';
import { limitedByAddress, requireMerchantSession } from './middleware';
import { SignInThrottle } from './sign-in-throttle';
import { throttledProof } from './proof-throttle';
import type { MerchantSession } from './sessions';
import { requireFreshAuthenticatorProof, type AuthenticatorProof } from './totp';

// The identity module's public surface: modules outside src/identity import it from here (or from
// the leaf modules context.ts, audit.ts, merchant-roles.ts and operator-roles.ts); lint:deps keeps it so.
export { allow, merchantSessionOf, requireMerchantSession, sessionOfRequest, MERCHANT_CSRF_HEADER, MERCHANT_SESSION_COOKIE } from './middleware';
export { sessionActor, type MerchantSession } from './sessions';
export type { AccountsContext } from './context';
export { recordAudit, type AuditAction } from './audit';
export { adminActorOf, dashboardSessionOf, notSignedInOperator } from './admin-guard';
export { access, merchant, merchantCredential, merchantSession, operator, publicRoute, route, serve, type Access, type DeclaredAccess } from './route-access';
export { ACCEPT_INVITATION_PATH, RESET_PASSWORD_PATH } from './present';
export { describeInvitation } from './invitations';
export { describePasswordReset } from './password-resets';
export { AuthenticatorProofBody, CustomerSearchQuery, EnabledEventsBody, EnabledEventsCatalog, PaymentSearchQuery, ReviewQueueQuery, WebhookSettings, WebhookUrlBody } from './schemas';

/** What the merchant dashboard's routes are built from. */
export interface MerchantAccounts {
  ctx: AccountsContext;
  throttle: SignInThrottle;
  /** The per-address limit every account route without a session puts first. */
  limit: ReturnType<typeof limitedByAddress>;
  /** The session guard every /merchant/v1 route past the sign-in puts first. */
  requireSession: ReturnType<typeof requireMerchantSession>;
  secureCookies: boolean;
}

/** Built once per app: the services' context, the sign-in throttle, the account routes' limit and the session guard. */
export function createMerchantAccounts(deps: AppDeps): MerchantAccounts {
  const ctx: AccountsContext = { db: deps.db, sealer: deps.sealer, logger: deps.logger, mailer: createMailer(deps.config, deps.logger), config: deps.config };
  return {
    ctx,
    throttle: new SignInThrottle(deps.db, deps.config.merchantSignInThrottle),
    limit: limitedByAddress(new AccountRouteLimit(deps.db, deps.config.accountRouteLimit)),
    requireSession: requireMerchantSession(ctx),
    /** Session cookies are Secure outside development (local http://localhost has no TLS). */
    secureCookies: deps.config.nodeEnv !== 'development',
  };
}

/**
 * Checks a fresh code (or recovery code) of the session's person, counted as a failed sign-in of
 * theirs and of `clientAddress` when wrong, as every proof outside the sign-in is.
 */
export function proveSessionAuthenticator({ ctx, throttle }: Pick<MerchantAccounts, 'ctx' | 'throttle'>, session: MerchantSession, clientAddress: string, proof: AuthenticatorProof): Promise<void> {
  return requireFreshAuthenticatorProof(ctx, throttledProof(throttle, session.user.email, clientAddress), session.user, proof);
}
