import { hashSecret } from '../crypto';
import { ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { findOpenPasswordResetUnscoped } from '../storage/password-resets';
import { claimTotpStepUnscoped, findAccountByIdUnscoped, updateAccountCredentialsUnscoped, type AccountRow } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import type { AccountsContext } from './context';
import { presentUser } from './present';
import { newTotpSecret, totpCodeStep, totpUri } from './secrets';

export const TOTP_ISSUER = 'Payments dashboard';

/** What a code sent by a person came to: accepted (its step now spent), not the secret's, or already used. */
export type TotpCheck = 'accepted' | 'wrong' | 'used';

export const TOTP_CODE_WRONG = 'Authenticator code is wrong.';
export const TOTP_CODE_USED = 'Authenticator code already used.';
export const TOTP_CODE_USED_HINT = 'Each code works once: wait for the next code of your app (a new one every 30 seconds).';

/**
 * Checks a code of the person's (sealed) secret and spends its time step: a code accepted once,
 * or any code of an earlier step, is refused from then on, at sign-in and enrolment alike.
 */
export async function spendTotpCode(ctx: AccountsContext, db: Db, userId: string, sealedSecret: string, code: string): Promise<TotpCheck> {
  const step = totpCodeStep(ctx.sealer.open(sealedSecret), code);
  if (step === null) return 'wrong';
  return (await claimTotpStepUnscoped(db, userId, step)) ? 'accepted' : 'used';
}

/** The 422 of an enrolment confirmed with a code that is wrong or used. */
export function totpRefusal(check: Exclude<TotpCheck, 'accepted'>): ValidationError {
  return check === 'used'
    ? new ValidationError(TOTP_CODE_USED, TOTP_CODE_USED_HINT)
    : new ValidationError(TOTP_CODE_WRONG, 'Enter the current six-digit code of the app you enrolled.');
}

/**
 * Authenticator enrolment of an existing person, in two steps: a new secret is kept pending (sealed)
 * until a code of it confirms it, so a secret the person never scanned cannot lock them out.
 */
export async function startTotp(ctx: AccountsContext, user: AccountRow) {
  const secret = newTotpSecret();
  await ctx.db.transaction(async (trx) => {
    await updateAccountCredentialsUnscoped(trx, user.id, { pending_totp_secret_sealed: ctx.sealer.seal(secret) });
    await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'totp.enrolment_started', target: user.id });
  });
  return { secret, otpauth_uri: totpUri(secret, user.email, TOTP_ISSUER) };
}

/** Confirms the pending secret with a code (spent like a sign-in's): from then on the person signs in with a code too. */
export async function confirmTotp(ctx: AccountsContext, db: Db, userId: string, code: string) {
  const user = await findAccountByIdUnscoped(db, userId);
  const pending = user?.pending_totp_secret_sealed;
  if (!user || !pending) throw new ValidationError('No authenticator enrolment was started.', 'Start one first; it gives the secret to scan.');
  const check = await spendTotpCode(ctx, db, user.id, pending, code);
  if (check !== 'accepted') throw totpRefusal(check);
  const updated = (await updateAccountCredentialsUnscoped(db, user.id, { totp_secret_sealed: pending, totp_enabled_at: new Date(), pending_totp_secret_sealed: null }))!;
  await recordAudit(db, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'totp.enabled', target: user.id });
  return presentUser(updated);
}

/** Enrolment from a password reset link, for an owner of a production account who cannot sign in without one. */
export async function startResetTotp(ctx: AccountsContext, token: string) {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findAccountByIdUnscoped(ctx.db, reset.user_id));
  if (!user) throw new ValidationError('Reset link not valid.', 'The link is used, expired or unknown: ask for a new one with POST /merchant/v1/password-resets.');
  return startTotp(ctx, user);
}

/** confirmTotp for a signed-in person, in a transaction of its own. */
export function confirmOwnTotp(ctx: AccountsContext, userId: string, code: string) {
  return ctx.db.transaction((trx) => confirmTotp(ctx, trx, userId, code));
}
