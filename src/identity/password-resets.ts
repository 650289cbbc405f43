import { MAX_PASSWORD_RESET_MAILS_PER_HOUR, PASSWORD_RESET_MINUTES } from './merchant-roles';
import { hashSecret } from '../crypto';
import { ValidationError } from '../http/errors';
import { claimPasswordResetUnscoped, findOpenPasswordResetUnscoped, insertPasswordResetWithinLimit } from '../storage/password-resets';
import { revokeUserSessions } from '../storage/sessions';
import { findAccountByEmailUnscoped, findAccountByIdUnscoped, updateAccountCredentialsUnscoped } from '../storage/people';
import { actorOfAccount, recordAudit } from './audit';
import { queueMail, sendQueuedMail } from './mail-outbox';
import type { AccountsContext } from './context';
import { linkWithToken, RESET_PASSWORD_PATH } from './present';
import type { PasswordResetBody } from './schemas';
import { hashPassword, newOneTimeToken } from './secrets';
import { confirmTotp } from './totp';

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

/**
 * Sets the new password from a reset link (claimed once), confirms an authenticator enrolled on the
 * reset page when a code comes with it, and revokes every session of the person.
 */
export async function resetPassword(ctx: AccountsContext, body: PasswordResetBody): Promise<{ password_reset: true }> {
  const passwordHash = await hashPassword(body.password);
  await ctx.db.transaction(async (trx) => {
    const claim = await claimPasswordResetUnscoped(trx, hashSecret(body.token));
    if (!claim) throw INVALID_RESET;
    const user = await findAccountByIdUnscoped(trx, claim.user_id);
    if (!user) throw INVALID_RESET;
    await updateAccountCredentialsUnscoped(trx, user.id, { password_hash: passwordHash });
    if (body.totp_code !== undefined) await confirmTotp(ctx, trx, user.id, body.totp_code);
    await revokeUserSessions(trx, user.id);
    await recordAudit(trx, { merchantId: user.merchant_id, actor: actorOfAccount(user), action: 'password.reset', target: user.id });
  });
  return { password_reset: true };
}

/** What the reset page shows: the email of an open reset link, or null when the link is not valid. */
export async function describePasswordReset(ctx: AccountsContext, token: string): Promise<{ email: string } | null> {
  const reset = await findOpenPasswordResetUnscoped(ctx.db, hashSecret(token));
  const user = reset && (await findAccountByIdUnscoped(ctx.db, reset.user_id));
  return user ? { email: user.email } : null;
}
