import { hashSecret } from '../crypto';
import { ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { findOpenPasswordResetUnscoped } from '../storage/merchant-password-resets';
import { findMerchantUserByIdUnscoped, updateMerchantUser, type MerchantUserRow } from '../storage/merchant-users';
import { recordAudit } from './audit';
import type { AccountsContext } from './context';
import { TOTP_ISSUER } from './invitations';
import { presentUser } from './present';
import { newTotpSecret, totpCodeMatches, totpUri } from './secrets';

/**
 * Authenticator enrolment of an existing person, in two steps: a new secret is kept pending (sealed)
 * until a code of it confirms it, so a secret the person never scanned cannot lock them out.
 */
export async function startTotp(ctx: AccountsContext, user: MerchantUserRow) {
  const secret = newTotpSecret();
  await ctx.db.transaction(async (trx) => {
    await updateMerchantUser(trx, user.merchant_id, user.id, { pending_totp_secret_sealed: ctx.sealer.seal(secret) });
    await recordAudit(trx, { merchantId: user.merchant_id, actor: { kind: 'user', id: user.id }, action: 'totp.enrolment_started', target: user.id });
  });
  return { secret, otpauth_uri: totpUri(secret, user.email, TOTP_ISSUER) };
}

/** Confirms the pending secret with a code: from then on the person signs in with a code too. */
export async function confirmTotp(ctx: AccountsContext, db: Db, userId: string, code: string) {
  const user = await findMerchantUserByIdUnscoped(db, userId);
  const pending = user?.pending_totp_secret_sealed;
  if (!user || !pending) throw new ValidationError('No authenticator enrolment was started.', 'Start one first; it gives the secret to scan.');
  if (!(await totpCodeMatches(ctx.sealer.open(pending), code))) throw new ValidationError('Authenticator code is wrong.', 'Enter the current six-digit code of the app you enrolled.');
  const updated = (await updateMerchantUser(db, user.merchant_id, user.id, { totp_secret_sealed: pending, totp_enabled_at: new Date(), pending_totp_secret_sealed: null }))!;
  await recordAudit(db, { merchantId: user.merchant_id, actor: { kind: 'user', id: user.id }, action: 'totp.enabled', target: user.id });
  return presentUser(updated);
}

/** Enrolment from a password reset link, for an owner of a production account who cannot sign in without one. */
export async function startResetTotp(ctx: AccountsContext, token: string) {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findMerchantUserByIdUnscoped(ctx.db, reset.user_id));
  if (!user) throw new ValidationError('Reset link not valid.', 'The link is used, expired or unknown: ask for a new one with POST /merchant/v1/password-resets.');
  return startTotp(ctx, user);
}

/** confirmTotp for a signed-in person, in a transaction of its own. */
export function confirmOwnTotp(ctx: AccountsContext, userId: string, code: string) {
  return ctx.db.transaction((trx) => confirmTotp(ctx, trx, userId, code));
}
