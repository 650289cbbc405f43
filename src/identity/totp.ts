import QRCode from 'qrcode';
import { hashSecret } from '../crypto';
import { ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { findOpenPasswordResetUnscoped } from '../storage/password-resets';
import { claimTotpStepUnscoped, findAccountByIdUnscoped, updateAccountCredentialsUnscoped, type AccountRow } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import type { AccountsContext } from './context';
import { presentUser } from './present';
import type { ProofGuard } from './proof-throttle';
import { issueRecoveryCodes, spendRecoveryCode, unusedRecoveryCodes } from './recovery-codes';
import { newTotpSecret, totpCodeStep, totpUri } from './secrets';

export const TOTP_ISSUER = 'Payments dashboard';

/** What a code sent by a person came to: accepted (its step now spent), not the secret's, or already used. */
export type TotpCheck = 'accepted' | 'wrong' | 'used';

/** What a proof of the enrolled authenticator came to: a TotpCheck, a recovery code that is not an unused one of theirs, or no proof at all. */
export type FactorCheck = TotpCheck | 'recovery_code_wrong' | 'missing';

export const TOTP_CODE_WRONG = 'Authenticator code is wrong.';
export const TOTP_CODE_USED = 'Authenticator code already used.';
export const TOTP_CODE_USED_HINT = 'Each code works once: wait for the next code of your app (a new one every 30 seconds).';
export const TOTP_CODE_REQUIRED = 'Authenticator code required.';
const PROOF_HINT = 'Send totp_code (the six-digit code of your authenticator app) or recovery_code (one of the recovery codes shown when you enrolled).';
const LOST_BOTH_HINT = 'Lost both? An owner of your account (an operator_admin for the operator\'s people) can start an authenticator recovery.';

/** The error and hint of a refused proof, the same at sign-in (401) and elsewhere (422). */
export function factorRefusalText(check: Exclude<FactorCheck, 'accepted'>): [error: string, hint: string] {
  if (check === 'missing') return [TOTP_CODE_REQUIRED, `${PROOF_HINT} ${LOST_BOTH_HINT}`];
  if (check === 'used') return [TOTP_CODE_USED, TOTP_CODE_USED_HINT];
  if (check === 'recovery_code_wrong') return ['Recovery code is wrong or used.', `Each recovery code works once. ${LOST_BOTH_HINT}`];
  return [TOTP_CODE_WRONG, 'Enter the current six-digit code of your authenticator app.'];
}

/** What a person may send to prove they hold their enrolled authenticator. */
export interface AuthenticatorProof {
  totp_code?: string | undefined;
  recovery_code?: string | undefined;
}

/**
 * Checks a code of the person's (sealed) secret and spends its time step: a code accepted once,
 * or any code of an earlier step, is refused from then on, at sign-in and enrolment alike.
 */
export async function spendTotpCode(ctx: AccountsContext, db: Db, userId: string, sealedSecret: string, code: string): Promise<TotpCheck> {
  const step = totpCodeStep(ctx.sealer.open(sealedSecret), code);
  if (step === null) return 'wrong';
  return (await claimTotpStepUnscoped(db, userId, step)) ? 'accepted' : 'used';
}

/**
 * Proves the person holds their enrolled authenticator: a code of it, or one of their recovery
 * codes, each spent so it works once. A recovery code used is audited with how many are left.
 */
export async function proveAuthenticator(ctx: AccountsContext, db: Db, user: AccountRow, sealedSecret: string, proof: AuthenticatorProof): Promise<FactorCheck> {
  if (proof.totp_code !== undefined) return spendTotpCode(ctx, db, user.id, sealedSecret, proof.totp_code);
  if (proof.recovery_code === undefined) return 'missing';
  if (!(await spendRecoveryCode(db, user.id, proof.recovery_code))) return 'recovery_code_wrong';
  const remaining = await unusedRecoveryCodes(db, user.id);
  await recordAudit(db, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'recovery_code.used', target: user.id, details: { remaining } });
  return 'accepted';
}

/** The 422 of a proof or an enrolment confirmation that is refused. */
export function totpRefusal(check: Exclude<FactorCheck, 'accepted'>): ValidationError {
  return new ValidationError(...factorRefusalText(check));
}

/** Refuses (422) unless the proof holds; for a person with no authenticator there is nothing to prove. */
export async function requireAuthenticatorProof(ctx: AccountsContext, db: Db, user: AccountRow, proof: AuthenticatorProof): Promise<void> {
  if (!user.totp_secret_sealed) return;
  const check = await proveAuthenticator(ctx, db, user, user.totp_secret_sealed, proof);
  if (check !== 'accepted') throw totpRefusal(check);
}

/** Where a signed-in merchant person enrols an authenticator. */
export const ENROL_ON_SECURITY_PAGE_HINT = 'This takes a current code of your authenticator app: enrol one on the Security page (/merchant/security), then try again.';

/**
 * A fresh proof of the signed-in person's authenticator before showing what a session alone must
 * not (a borrowed laptop, a stolen cookie): the code is spent, and counted by `guard` like any
 * other guess. A person without an authenticator has nothing to prove it with and is refused.
 */
export async function requireFreshAuthenticatorProof(ctx: AccountsContext, guard: ProofGuard, user: AccountRow, proof: AuthenticatorProof): Promise<void> {
  if (!user.totp_secret_sealed) throw new ValidationError('No authenticator enrolled.', ENROL_ON_SECURITY_PAGE_HINT);
  await guard(() => ctx.db.transaction((trx) => requireAuthenticatorProof(ctx, trx, user, proof)));
}

/**
 * What a person adds to their authenticator app: the secret to type, its otpauth:// URI, and that
 * URI as a QR code (a PNG data URL, made here so the pages need no QR library and no other origin).
 */
export async function totpEnrolment(secret: string, email: string) {
  const uri = totpUri(secret, email, TOTP_ISSUER);
  return { secret, otpauth_uri: uri, qr_code: await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 200 }) };
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
  return totpEnrolment(secret, user.email);
}

/**
 * A signed-in person's enrolment: replacing an authenticator they already have takes a code of it
 * or a recovery code, so a session alone (a borrowed laptop) cannot swap the second factor.
 */
export async function startOwnTotp(ctx: AccountsContext, guard: ProofGuard, user: AccountRow, proof: AuthenticatorProof) {
  if (user.totp_secret_sealed) await guard(() => ctx.db.transaction((trx) => requireAuthenticatorProof(ctx, trx, user, proof)));
  return startTotp(ctx, user);
}

/**
 * Confirms the pending secret with a code (spent like a sign-in's): from then on the person signs
 * in with a code too. A new set of recovery codes comes with it, shown this once.
 */
export async function confirmTotp(ctx: AccountsContext, db: Db, userId: string, code: string) {
  const user = await findAccountByIdUnscoped(db, userId);
  const pending = user?.pending_totp_secret_sealed;
  if (!user || !pending) throw new ValidationError('No authenticator enrolment was started.', 'Start one first; it gives the secret to scan.');
  const check = await spendTotpCode(ctx, db, user.id, pending, code);
  if (check !== 'accepted') throw totpRefusal(check);
  const updated = (await updateAccountCredentialsUnscoped(db, user.id, { totp_secret_sealed: pending, totp_enabled_at: new Date(), pending_totp_secret_sealed: null }))!;
  const recoveryCodes = await issueRecoveryCodes(db, user.id);
  await recordAudit(db, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'totp.enabled', target: user.id, details: { replaced: user.totp_secret_sealed !== null } });
  return { ...presentUser(updated), recovery_codes: recoveryCodes };
}

/**
 * Enrolment from a reset link: an authenticator recovery link (started by an owner or an
 * operator_admin), or a plain reset of a person who has none yet (an owner of a production account
 * cannot sign in without one). A plain reset link never replaces an enrolled authenticator.
 */
export async function startResetTotp(ctx: AccountsContext, token: string) {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findAccountByIdUnscoped(ctx.db, reset.user_id));
  if (!reset || !user) throw new ValidationError('Reset link not valid.', 'The link is used, expired or unknown: ask for a new one with POST /merchant/v1/password-resets.');
  if (reset.purpose === 'password' && user.totp_secret_sealed) {
    throw new ValidationError('A password reset keeps your authenticator.', `Complete the reset with a code of it or a recovery code. ${LOST_BOTH_HINT}`);
  }
  return startTotp(ctx, user);
}

/** confirmTotp for a signed-in person, in a transaction of its own. */
export function confirmOwnTotp(ctx: AccountsContext, userId: string, code: string) {
  return ctx.db.transaction((trx) => confirmTotp(ctx, trx, userId, code));
}

/** New recovery codes for a signed-in person, against a current code of their authenticator (or one recovery code): the earlier set stops working. */
export async function regenerateRecoveryCodes(ctx: AccountsContext, guard: ProofGuard, user: AccountRow, proof: AuthenticatorProof) {
  if (!user.totp_secret_sealed) throw new ValidationError('No authenticator enrolled.', 'Recovery codes come with an authenticator: enrol one first.');
  return guard(() =>
    ctx.db.transaction(async (trx) => {
      await requireAuthenticatorProof(ctx, trx, user, proof);
      const codes = await issueRecoveryCodes(trx, user.id);
      await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'recovery_codes.regenerated', target: user.id });
      return { recovery_codes: codes };
    }),
  );
}
