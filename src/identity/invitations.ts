import { INVITATION_DAYS, roleMay } from './merchant-roles';
import { newId } from '../domain/ids';
import { AdminNotFoundError, ConflictError, ValidationError } from '../http/errors';
import { findMerchant } from '../storage/merchants';
import { hashSecret } from '../crypto';
import {
  findOpenInvitationByTokenHashUnscoped, insertMerchantInvitation, markInvitationAccepted, revokeOpenInvitation, revokeOpenInvitationsOfEmail, setInvitationPendingTotp, type MerchantInvitationRow,
} from '../storage/invitations';
import type { MerchantRole } from './merchant-roles';
import { operatorRoleMay, type OperatorRole } from './operator-roles';
import { EmailTakenError, findAccountByEmailUnscoped, findAccountByIdUnscoped, findAccountsByIdsUnscoped, insertAccount, isOperator, type AccountRow } from '../storage/people';
import type { Db } from '../storage/db';
import { revokeOpenInvitationsOfInviterUnscoped } from '../storage/invitations';
import { pageOpenInvitations } from '../storage/pages';
import { listPage, type AdminPageQuery } from '../readback/list-page';
import { actorOfAccount, recordAudit } from './audit';
import { queueMail, sendQueuedMail } from './mail-outbox';
import type { Mail } from './mailer';
import { actorName, type AccountsContext, type Actor } from './context';
import { ACCEPT_INVITATION_PATH, linkWithToken, mailDate, presentInvitation, presentOpenInvitation, presentUser, roleInWords } from './present';
import type { AcceptInvitationBody } from './schemas';
import { hashChosenPassword } from './passwords';
import { issueRecoveryCodes } from './recovery-codes';
import { newOneTimeToken, newTotpSecret, totpCodeStep } from './secrets';
import { totpEnrolment, totpRefusal } from './totp';

/** Whom an invitation is for: a merchant's person (its merchant and a merchant role) or the operator's (no merchant, an operator role). */
export type InvitationScope = { merchantId: string; role: MerchantRole } | { merchantId: null; role: OperatorRole };

export const INVALID_INVITATION = new ValidationError(
  'Invitation not valid.',
  'The link is used, expired or unknown: ask an owner of the account (or the operator) for a new invitation.',
);

const EMAIL_TAKEN_HINT = 'One email address holds one account: the person signs in with it, or uses another address.';

/** The admin API's invitation: the merchant named in the path must exist (404 otherwise). */
export async function inviteToMerchant(ctx: AccountsContext, merchantId: string, actor: Actor, body: { email: string; role: MerchantRole }) {
  if (!(await findMerchant(ctx.db, merchantId))) throw merchantNotFound(merchantId);
  return invite(ctx, { merchantId, role: body.role }, actor, body.email);
}

/** The admin API's list of a merchant's open invitations: the merchant must exist (404 otherwise). */
export async function listMerchantInvitations(ctx: AccountsContext, merchantId: string, query: AdminPageQuery) {
  if (!(await findMerchant(ctx.db, merchantId))) throw merchantNotFound(merchantId);
  return listOpenInvitations(ctx, merchantId, query, (cursor) => new AdminNotFoundError('Unknown starting_after.', `${cursor} is not an item of this list; pass the next_starting_after of the previous page.`));
}

/** The admin API's revocation of a merchant's open invitation. */
export async function revokeMerchantInvitation(ctx: AccountsContext, merchantId: string, actor: Actor, id: string) {
  if (!(await findMerchant(ctx.db, merchantId))) throw merchantNotFound(merchantId);
  return revokeInvitation(ctx, merchantId, actor, id, () => new AdminNotFoundError('Invitation not found.', `No open invitation ${id} of merchant ${merchantId}; GET /admin/v1/merchants/${merchantId}/invitations lists them.`));
}

const merchantNotFound = (merchantId: string) => new AdminNotFoundError('Merchant not found.', `No merchant ${merchantId} exists.`);

/** Invites one of the operator's people (the admin token or an operator_admin): they must enrol an authenticator to accept. */
export function inviteOperator(ctx: AccountsContext, actor: Actor, body: { email: string; role: OperatorRole }) {
  return invite(ctx, { merchantId: null, role: body.role }, actor, body.email);
}

/** A merchant's owner invites a person to their team (the merchant is the session's). */
export function inviteMember(ctx: AccountsContext, merchantId: string, actor: Actor, body: { email: string; role: MerchantRole }) {
  return invite(ctx, { merchantId, role: body.role }, actor, body.email);
}

/**
 * Invites a person (a merchant's, whose merchant the caller checked, or the operator's): the
 * invitation, its audit row and its mail commit together, then the mail is sent (and retried by the
 * mail outbox until it is). The token is in the answer and the mail only; the table keeps its hash.
 * One email holds one account, whatever its scope.
 */
async function invite(ctx: AccountsContext, scope: InvitationScope, actor: Actor, email: string) {
  if (await findAccountByEmailUnscoped(ctx.db, email)) throw new ConflictError('Email already has an account.', EMAIL_TAKEN_HINT);
  const { token, hash } = newOneTimeToken();
  const merchantId = scope.merchantId;
  const acceptUrl = linkWithToken(ctx.config.apiBaseUrl, ACCEPT_INVITATION_PATH, token);
  const { invitation, mailId } = await ctx.db.transaction(async (trx) => {
    // A new invitation replaces the open ones of the same email in the same scope: one live link per person.
    const replaced = await revokeOpenInvitationsOfEmail(trx, merchantId, email);
    const row = await insertMerchantInvitation(trx, {
      id: newId('invitation'),
      merchant_id: merchantId,
      email,
      role: scope.role,
      token_hash: hash,
      expires_at: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
      invited_by: actorName(actor),
    });
    await recordAudit(trx, { merchantId, actor, action: 'invitation.created', target: row.id, details: { email: row.email, role: row.role, ...(replaced.length ? { replaced } : {}) } });
    const mail = invitationMail(row, acceptUrl, await invitationSenders(trx, row));
    return { invitation: row, mailId: await queueMail(trx, ctx.sealer, mail, row.expires_at) };
  });
  await sendQueuedMail(ctx, mailId);
  return presentInvitation(invitation, acceptUrl);
}

/** Who sent an invitation and where to: the inviter's email (null for the admin token or someone no longer here) and the business's name (null: the operator's dashboard). */
interface InvitationSenders {
  inviter: string | null;
  business: string | null;
}

async function invitationSenders(db: Db, invitation: MerchantInvitationRow): Promise<InvitationSenders> {
  const inviter = invitation.invited_by === 'admin' ? undefined : await findAccountByIdUnscoped(db, invitation.invited_by);
  const merchant = invitation.merchant_id === null ? undefined : await findMerchant(db, invitation.merchant_id);
  return { inviter: inviter?.email ?? null, business: merchant?.name ?? null };
}

/** "ada@example.com invited you to join Acme's payments dashboard as Owner." */
function invitationSentence(invitation: MerchantInvitationRow, senders: InvitationSenders, you: string): string {
  const who = senders.inviter ?? 'The operator';
  const where = senders.business === null ? "the operator's payments dashboard" : `${senders.business} on the payments dashboard`;
  return `${who} invited ${you} to join ${where} as ${roleInWords(invitation.role)}.`;
}

function invitationMail(invitation: MerchantInvitationRow, acceptUrl: string, senders: InvitationSenders): Mail {
  const text = [
    invitationSentence(invitation, senders, 'you'),
    '',
    `Choose your password here (the link works once, until ${mailDate(invitation.expires_at)}):`,
    acceptUrl,
    '',
    'If you did not expect this invitation, ignore this mail.',
  ].join('\n');
  const subject = senders.business === null ? 'Your invitation to the operator dashboard' : `Your invitation to ${senders.business} on the payments dashboard`;
  return { to: invitation.email, subject, text };
}

/** Starts authenticator enrolment on the invitation page: a new secret, confirmed by the code sent with the acceptance. */
export async function startInvitationTotp(ctx: AccountsContext, token: string) {
  const invitation = await findOpenInvitationByTokenHashUnscoped(ctx.db, hashSecret(token));
  if (!invitation) throw INVALID_INVITATION;
  const secret = newTotpSecret();
  await ctx.db.transaction(async (trx) => {
    await setInvitationPendingTotp(trx, invitation.id, ctx.sealer.seal(secret));
    await recordAudit(trx, { merchantId: invitation.merchant_id, actor: { kind: 'invitation', id: invitation.id }, action: 'totp.enrolment_started', target: invitation.id });
  });
  return totpEnrolment(secret, invitation.email);
}

/**
 * Accepts an invitation: the person's account, the invitation's use and the audit row in one
 * transaction, the invitation locked so a link sent twice at once makes one account. A code sent
 * with it confirms the authenticator enrolled on the page, and answers the person's recovery codes.
 */
export async function acceptInvitation(ctx: AccountsContext, body: AcceptInvitationBody) {
  // The token first: an unknown one costs no password hash.
  const open = await findOpenInvitationByTokenHashUnscoped(ctx.db, hashSecret(body.token));
  if (!open) throw INVALID_INVITATION;
  const passwordHash = await hashChosenPassword(body.password, open.email);
  return ctx.db.transaction(async (trx) => {
    const invitation = await findOpenInvitationByTokenHashUnscoped(trx, hashSecret(body.token), true);
    if (!invitation || !(await inviterMayStillInvite(trx, invitation))) throw INVALID_INVITATION;
    // Never null for an operator's invitation: confirmedTotp refuses one without a code.
    const totp = confirmedTotp(ctx, invitation, body.totp_code);
    const common = { email: invitation.email, password_hash: passwordHash, totp_enabled_at: totp ? new Date() : null, totp_last_step: totp?.step ?? null };
    const user: AccountRow = await (invitation.merchant_id === null
      ? insertAccount(trx, { ...common, id: newId('operatorUser'), merchant_id: null, role: invitation.role as OperatorRole, totp_secret_sealed: totp!.sealed })
      : insertAccount(trx, { ...common, id: newId('merchantUser'), merchant_id: invitation.merchant_id, role: invitation.role as MerchantRole, totp_secret_sealed: totp?.sealed ?? null })
    ).catch((error: unknown) => {
      if (error instanceof EmailTakenError) throw new ConflictError('Email already has an account.', EMAIL_TAKEN_HINT);
      throw error;
    });
    await markInvitationAccepted(trx, invitation.id);
    await recordAudit(trx, { merchantId: invitation.merchant_id, actor: actorOfAccount(user), action: 'invitation.accepted', target: invitation.id, details: { role: user.role, totp_enabled: totp !== null } });
    return totp ? { user: presentUser(user), recovery_codes: await issueRecoveryCodes(trx, user.id) } : { user: presentUser(user) };
  });
}

/**
 * The sealed secret to enable and the step its code used (so the code cannot sign in too), when a
 * code came with the acceptance; a wrong code is refused rather than ignored. The operator's people
 * must send one: they act on every merchant.
 */
function confirmedTotp(ctx: AccountsContext, invitation: MerchantInvitationRow, code: string | undefined): { sealed: string; step: number } | null {
  const sealed = invitation.pending_totp_secret_sealed;
  if (code === undefined) {
    if (invitation.merchant_id === null) throw new ValidationError('Authenticator required.', "The operator's people enrol an authenticator app: start it with POST /merchant/v1/invitations/totp, then send its code as totp_code.");
    return null;
  }
  if (!sealed) throw new ValidationError('No authenticator enrolment was started.', 'Start it with POST /merchant/v1/invitations/totp, or accept without totp_code.');
  const step = totpCodeStep(ctx.sealer.open(sealed), code);
  if (step === null) throw totpRefusal('wrong');
  return { sealed, step };
}

/** What the invitation page shows: the open invitation's email, role, business and sender, or null when the link is not valid. */
export async function describeInvitation(ctx: AccountsContext, token: string): Promise<{ email: string; role: string; operator: boolean; business: string | null; inviter: string | null; sentence: string } | null> {
  const invitation = await findOpenInvitationByTokenHashUnscoped(ctx.db, hashSecret(token));
  if (!invitation) return null;
  const senders = await invitationSenders(ctx.db, invitation);
  return { email: invitation.email, role: invitation.role, operator: invitation.merchant_id === null, ...senders, sentence: invitationSentence(invitation, senders, invitation.email) };
}

/**
 * An invitation dies with its inviter's right to invite: a person removed, or given a role that may
 * not invite into that scope, leaves no live link behind (their open invitations are revoked with the
 * change; this check also covers a change made any other way). The admin token always may.
 */
async function inviterMayStillInvite(db: Db, invitation: MerchantInvitationRow): Promise<boolean> {
  if (invitation.invited_by === 'admin') return true;
  const inviter = await findAccountByIdUnscoped(db, invitation.invited_by);
  if (!inviter) return false;
  if (isOperator(inviter)) return operatorRoleMay(inviter.role, invitation.merchant_id === null ? 'operators' : 'merchants');
  return inviter.merchant_id === invitation.merchant_id && roleMay(inviter.role, 'team');
}

/** The invitations a change revoked, named in its audit entry when there were any. */
export const revokedDetail = (ids: string[]) => (ids.length ? { revoked_invitations: ids } : {});

/**
 * Revokes the open invitations of a person who can no longer send them (removed, or a new role
 * that may not invite into a scope): called in the transaction of the removal or role change.
 */
export function revokeInvitationsOfInviter(db: Db, inviter: AccountRow, newRole: AccountRow['role'] | null): Promise<string[]> {
  if (isOperator(inviter)) {
    const role = newRole as OperatorRole | null;
    return revokeOpenInvitationsOfInviterUnscoped(db, inviter.id, {
      operatorInvitations: !role || !operatorRoleMay(role, 'operators'),
      merchantInvitations: !role || !operatorRoleMay(role, 'merchants'),
    });
  }
  const role = newRole as MerchantRole | null;
  const mayInvite = role !== null && roleMay(role, 'team');
  return revokeOpenInvitationsOfInviterUnscoped(db, inviter.id, { merchantInvitations: !mayInvite, operatorInvitations: false });
}

/** The open invitations of a merchant (or, with null, of the operator's people), newest first, each naming its inviter. */
export function listOpenInvitations(ctx: AccountsContext, merchantId: string | null, query: AdminPageQuery, unknownCursor: (cursor: string) => Error) {
  return listPage(
    () => pageOpenInvitations(ctx.db, merchantId, { limit: query.limit, startingAfter: query.starting_after }),
    async (rows) => {
      const inviters = await findAccountsByIdsUnscoped(ctx.db, rows.map((row) => row.invited_by));
      return rows.map((row) => presentOpenInvitation(row, inviters.get(row.invited_by)?.email ?? null));
    },
    unknownCursor,
  );
}

/** Revokes an open invitation of a merchant (or, with null, of the operator's people): its link stops working at once. */
export async function revokeInvitation(ctx: AccountsContext, merchantId: string | null, actor: Actor, id: string, notFound: () => Error) {
  return ctx.db.transaction(async (trx) => {
    const revoked = await revokeOpenInvitation(trx, merchantId, id);
    if (!revoked) throw notFound();
    await recordAudit(trx, { merchantId, actor, action: 'invitation.revoked', target: id, details: { email: revoked.email, role: revoked.role } });
    return { id, revoked: true as const };
  });
}
