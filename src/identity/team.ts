import type { MerchantRole } from './merchant-roles';
import { MerchantNotFoundError, ValidationError } from '../http/errors';
import { deleteMerchantUser, findMerchantUser, lockMerchantOwners, updateMerchantUser } from '../storage/people';
import { listPage } from '../readback/list-page';
import { pageMerchantUsers } from '../storage/pages';
import { recordAudit } from './audit';
import { listOpenInvitations, revokedDetail, revokeInvitation, revokeInvitationsOfInviter } from './invitations';
import type { AccountsContext } from './context';
import { presentUser } from './present';
import { sessionActor, type MerchantSession } from './sessions';

// Another merchant's person is reported exactly like a missing one.
const memberNotFound = (id: string) => new MerchantNotFoundError('Team member not found.', `No person ${id} in this account's team.`);

/** A page of the account's people, in the order they joined. */
export function listTeam(ctx: AccountsContext, merchantId: string, query: { limit: number; starting_after?: string }) {
  return listPage(
    () => pageMerchantUsers(ctx.db, merchantId, { limit: query.limit, startingAfter: query.starting_after }),
    (rows) => rows.map(presentUser),
    (cursor) => memberNotFound(cursor),
  );
}

/** The account's open invitations, newest first (owners). */
export function listTeamInvitations(ctx: AccountsContext, merchantId: string, query: { limit: number; starting_after?: string }) {
  return listOpenInvitations(ctx, merchantId, query, (cursor) => invitationNotFound(cursor));
}

/** Revokes an open invitation of the account (owners): its link stops working at once. */
export function revokeTeamInvitation(ctx: AccountsContext, session: MerchantSession, id: string) {
  return revokeInvitation(ctx, session.merchant.id, sessionActor(session), id, () => invitationNotFound(id));
}

// Another merchant's invitation is reported exactly like a missing one.
const invitationNotFound = (id: string) => new MerchantNotFoundError('Invitation not found.', `No open invitation ${id} in this account; GET /merchant/v1/team/invitations lists them.`);

/**
 * Changes a person's role; their sessions take the new role with their next call. The owners and
 * the person are locked, and an account never loses its last owner (someone must be able to
 * manage the team), even when two owners demote or remove each other at once.
 */
export async function changeRole(ctx: AccountsContext, session: MerchantSession, memberId: string, role: MerchantRole) {
  const merchantId = session.merchant.id;
  return ctx.db.transaction(async (trx) => {
    const owners = await lockMerchantOwners(trx, merchantId);
    const member = await findMerchantUser(trx, merchantId, memberId, true);
    if (!member) throw memberNotFound(memberId);
    if (member.role === role) return presentUser(member);
    if (member.role === 'owner') keepAnOwner(owners);
    const updated = (await updateMerchantUser(trx, merchantId, memberId, { role }))!;
    const revokedInvitations = await revokeInvitationsOfInviter(trx, member, role);
    await recordAudit(trx, { merchantId, actor: sessionActor(session), action: 'member.role_changed', target: memberId, details: { email: member.email, from: member.role, to: role, ...revokedDetail(revokedInvitations) } });
    return presentUser(updated);
  });
}

/** Removes a person (the owners locked, as for a role change): their row goes, and with it every session of theirs. */
export async function removeMember(ctx: AccountsContext, session: MerchantSession, memberId: string) {
  const merchantId = session.merchant.id;
  await ctx.db.transaction(async (trx) => {
    const owners = await lockMerchantOwners(trx, merchantId);
    const member = await findMerchantUser(trx, merchantId, memberId, true);
    if (!member) throw memberNotFound(memberId);
    if (member.role === 'owner') keepAnOwner(owners);
    const revokedInvitations = await revokeInvitationsOfInviter(trx, member, null);
    await deleteMerchantUser(trx, merchantId, memberId);
    await recordAudit(trx, { merchantId, actor: sessionActor(session), action: 'member.removed', target: memberId, details: { email: member.email, role: member.role, ...revokedDetail(revokedInvitations) } });
  });
  return { id: memberId, removed: true as const };
}

/** Refuses a change that would take away the one owner left (the owners locked by the caller). */
function keepAnOwner(owners: string[]): void {
  if (owners.length <= 1) throw new ValidationError('The last owner stays.', 'Make another person an owner first; an account always keeps one owner.');
}
