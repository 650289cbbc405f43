import { PASSWORD_RESET_MINUTES } from './merchant-roles';
import { AdminNotFoundError, MerchantNotFoundError, ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { endPasswordResetsUnscoped, insertPasswordReset } from '../storage/password-resets';
import { findAccountByIdUnscoped, findMerchantUser, isOperator, type AccountRow } from '../storage/people';
import { revokeUserSessions } from '../storage/sessions';
import { recordAudit } from './audit';
import { actorName, type AccountsContext, type Actor } from './context';
import { queueMail, sendQueuedMail } from './mail-outbox';
import { linkWithToken, RESET_PASSWORD_PATH } from './present';
import { newOneTimeToken } from './secrets';

/** Who starts a recovery: the actor recorded, and the name the person reads in the mail. */
export interface RecoveryStarter {
  actor: Actor;
  name: string;
}

/**
 * An owner starts the recovery of one of their merchant's people who lost their authenticator.
 * Another merchant's person is reported exactly like a missing one.
 */
export async function recoverMemberAuthenticator(ctx: AccountsContext, merchantId: string, starter: RecoveryStarter, memberId: string) {
  return startRecovery(ctx, starter, (trx) => findMerchantUser(trx, merchantId, memberId, true), () => new MerchantNotFoundError('Team member not found.', `No person ${memberId} in this account's team.`));
}

/** An operator_admin (or the admin token) starts the recovery of one of the operator's people. */
export async function recoverOperatorAuthenticator(ctx: AccountsContext, starter: RecoveryStarter, operatorId: string) {
  const find = async (trx: Db) => {
    const found = await findAccountByIdUnscoped(trx, operatorId);
    return found && isOperator(found) ? found : undefined;
  };
  return startRecovery(ctx, starter, find, () => new AdminNotFoundError('Operator not found.', `No operator ${operatorId}; GET /admin/v1/operators lists them.`));
}

/**
 * The recovery itself: every session and reset link of the person ends, a one-time link that
 * enrols a new authenticator (and sets a new password) is mailed to them, and the audit row names
 * who started it; all in one transaction, the mail sent after the commit. The enrolled
 * authenticator keeps working until the new one replaces it. Nobody recovers their own: a
 * signed-in person re-enrols with a code or a recovery code.
 */
async function startRecovery(ctx: AccountsContext, starter: RecoveryStarter, find: (trx: Db) => Promise<AccountRow | undefined>, notFound: () => Error) {
  const { token, hash } = newOneTimeToken();
  const expiresAt = new Date(Date.now() + PASSWORD_RESET_MINUTES * 60_000);
  const { person, mailId } = await ctx.db.transaction(async (trx) => {
    const found = await find(trx);
    if (!found) throw notFound();
    if ((starter.actor.kind === 'user' || starter.actor.kind === 'operator') && starter.actor.id === found.id) {
      throw new ValidationError('You cannot recover your own authenticator.', 'Replace it from your session with a code of it or a recovery code (POST /merchant/v1/me/totp), or ask another owner or operator_admin.');
    }
    if (!found.totp_secret_sealed) throw new ValidationError('No authenticator to recover.', 'The person has none enrolled: they sign in with their password and enrol one.');
    await endPasswordResetsUnscoped(trx, found.id);
    await insertPasswordReset(trx, { token_hash: hash, user_id: found.id, expires_at: expiresAt, purpose: 'authenticator_recovery', started_by: actorName(starter.actor) });
    await revokeUserSessions(trx, found.id);
    await recordAudit(trx, { merchantId: found.merchant_id, actor: starter.actor, action: 'authenticator.recovery_started', target: found.id, details: { email: found.email } });
    return { person: found, mailId: await queueMail(trx, ctx.sealer, recoveryMail(ctx, found, starter.name, token), expiresAt) };
  });
  await sendQueuedMail(ctx, mailId);
  return { id: person.id, recovery_started: true as const, expires_at: expiresAt.toISOString() };
}

function recoveryMail(ctx: AccountsContext, person: AccountRow, startedBy: string, token: string) {
  const link = linkWithToken(ctx.config.apiBaseUrl, RESET_PASSWORD_PATH, token);
  const text = [
    `${startedBy} started the recovery of the authenticator of ${person.email} on the payments dashboard; your sessions were ended.`,
    '',
    `Enrol a new authenticator app and choose a new password here (the link works once, for ${PASSWORD_RESET_MINUTES} minutes):`,
    link,
    '',
    'If you did not ask for this, tell them: your current authenticator keeps working until a new one is enrolled.',
  ].join('\n');
  return { to: person.email, subject: 'Recover your payments dashboard authenticator', text };
}
