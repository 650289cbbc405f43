import { MAX_PASSWORD_RESET_MAILS_PER_HOUR, PASSWORD_RESET_MINUTES } from './merchant-roles';
import { hashSecret } from '../crypto';
import { ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { claimPasswordResetUnscoped, endPasswordResetsUnscoped, findOpenPasswordResetUnscoped, insertPasswordResetWithinLimit, type OpenReset } from '../storage/password-resets';
import { revokeUserSessions } from '../storage/sessions';
import { findAccountByEmailUnscoped, findAccountByIdUnscoped, updateAccountCredentialsUnscoped, type AccountRow } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import { queueMail, sendQueuedMail } from './mail-outbox';
import type { AccountsContext } from './context';
import { hashChosenPassword } from './passwords';
import { linkWithToken, RESET_PASSWORD_PATH } from './present';
import { throttledProof, type ProofGuard } from './proof-throttle';
import type { PasswordResetBody } from './schemas';
import { newOneTimeToken } from './secrets';
import type { SignInThrottle } from './sign-in-throttle';
import { confirmTotp, requireAuthenticatorProof } from './totp';

const INVALID_RESET = new ValidationError('Reset link not valid.', 'The link is used, expired or unknown: ask for a new one with POST /merchant/v1/password-resets.');

/**
 * A reset request, answered before any of its work: the route answers 202 whatever the email, then
 * calls this, so the answer's timing tells nobody which emails have accounts. The work (lookup, link,
 * audit entry and mail, committed together, the mail then sent by the outbox) runs after the answer
 * in this process; a crash before its commit loses the request whole (no link without its mail),
 * and the person asks again. It never throws: a failure is logged.
 */
export function requestPasswordResetAfterAnswer(ctx: AccountsContext, email: string, clientAddress: string): void {
  requestPasswordReset(ctx, email, clientAddress).catch((error: unknown) => {
    ctx.logger.error({ err: error, client_address: clientAddress }, 'password reset request failed after its answer; the person may ask again');
  });
}

/**
 * Mails a one-time reset link when the email has an account (a merchant's person or an operator), at
 * most MAX_PASSWORD_RESET_MAILS_PER_HOUR an hour however many requests arrive at once.
 */
async function requestPasswordReset(ctx: AccountsContext, email: string, clientAddress: string): Promise<void> {
  const user = await findAccountByEmailUnscoped(ctx.db, email);
  if (!user) return;
  const { token, hash } = newOneTimeToken();
  const expiresAt = new Date(Date.now() + PASSWORD_RESET_MINUTES * 60_000);
  const link = linkWithToken(ctx.config.apiBaseUrl, RESET_PASSWORD_PATH, token);
  const text = [`Someone asked to reset the password of ${user.email} on the payments dashboard.`, '', `Choose a new one here (the link works once, for ${PASSWORD_RESET_MINUTES} minutes):`, link, '', 'If it was not you, ignore this mail.'].join('\n');
  const mailId = await ctx.db.transaction(async (trx) => {
    if (!(await insertPasswordResetWithinLimit(trx, { token_hash: hash, user_id: user.id, expires_at: expiresAt }, MAX_PASSWORD_RESET_MAILS_PER_HOUR))) return null;
    await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user, clientAddress), action: 'password.reset_requested', target: user.id });
    return queueMail(trx, ctx.sealer, { to: user.email, subject: 'Reset your payments dashboard password', text }, expiresAt);
  });
  if (mailId === null) {
    ctx.logger.warn({ user_id: user.id, client_address: clientAddress }, 'password reset mail not sent: hourly limit reached');
    return;
  }
  await sendQueuedMail(ctx, mailId);
}

/** The open reset link of a token and its person, looked up before any password work: an unknown token costs no hash. */
export async function openResetOf(ctx: AccountsContext, token: string): Promise<{ reset: OpenReset; user: AccountRow }> {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findAccountByIdUnscoped(ctx.db, reset.user_id));
  if (!reset || !user) throw INVALID_RESET;
  return { reset, user };
}

/**
 * Sets the new password from a reset link (claimed once) and revokes every session of the person
 * and every other reset link of theirs. A person with an authenticator proves they hold it (a code
 * or a recovery code, guarded like a sign-in), unless the link is an authenticator recovery, which
 * enrols a new one instead; a person without one may enrol one on the page.
 */
export async function resetPassword(ctx: AccountsContext, throttle: SignInThrottle, clientAddress: string, body: PasswordResetBody): Promise<{ password_reset: true; recovery_codes?: string[] }> {
  const { reset, user: person } = await openResetOf(ctx, body.token);
  const passwordHash = await hashChosenPassword(body.password, person.email);
  const guard: ProofGuard = person.totp_secret_sealed && reset.purpose === 'password' ? throttledProof(throttle, person.email, clientAddress) : (prove) => prove();
  return guard(() =>
    ctx.db.transaction(async (trx) => {
      const claim = await claimPasswordResetUnscoped(trx, hashSecret(body.token));
      const user = claim && (await findAccountByIdUnscoped(trx, claim.user_id));
      if (!claim || !user) throw INVALID_RESET;
      const recoveryCodes = await secondFactorOfReset(ctx, trx, claim, user, body);
      await updateAccountCredentialsUnscoped(trx, user.id, { password_hash: passwordHash });
      await endPasswordResetsUnscoped(trx, user.id);
      await revokeUserSessions(trx, user.id);
      await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'password.reset', target: user.id, details: { purpose: claim.purpose } });
      return recoveryCodes ? { password_reset: true as const, recovery_codes: recoveryCodes } : { password_reset: true as const };
    }),
  );
}

/** What a reset does with the authenticator: enrols the new one (answering its recovery codes), or checks the enrolled one. */
async function secondFactorOfReset(ctx: AccountsContext, trx: Db, claim: OpenReset, user: AccountRow, body: PasswordResetBody): Promise<string[] | null> {
  if (claim.purpose === 'authenticator_recovery') {
    if (body.totp_code === undefined) throw new ValidationError('Authenticator required.', 'An authenticator recovery enrols a new authenticator: start it with POST /merchant/v1/password-resets/totp, then send its code as totp_code.');
    return (await confirmTotp(ctx, trx, user.id, body.totp_code)).recovery_codes;
  }
  if (user.totp_secret_sealed) {
    await requireAuthenticatorProof(ctx, trx, user, body);
    return null;
  }
  return body.totp_code === undefined ? null : (await confirmTotp(ctx, trx, user.id, body.totp_code)).recovery_codes;
}

/** What the reset page shows: the email of an open reset link and what it asks for, or null when the link is not valid. */
export async function describePasswordReset(ctx: AccountsContext, token: string): Promise<{ email: string; recovery: boolean; has_authenticator: boolean; operator: boolean } | null> {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findAccountByIdUnscoped(ctx.db, reset.user_id));
  return reset && user ? { email: user.email, recovery: reset.purpose === 'authenticator_recovery', has_authenticator: user.totp_secret_sealed !== null, operator: user.merchant_id === null } : null;
}
