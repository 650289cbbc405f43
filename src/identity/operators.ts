import { AdminNotFoundError } from '../http/errors';
import { recordAudit } from './audit';
import type { AccountsContext, Actor } from './context';
import { inviteOperator, listOpenInvitations, revokedDetail, revokeInvitation, revokeInvitationsOfInviter } from './invitations';
import { presentUser } from './present';
import type { OperatorRole } from './operator-roles';
import { deleteOperatorUnscoped, findAccountByIdUnscoped, isOperator, updateOperatorRoleUnscoped } from '../storage/people';
import { pageOperatorsUnscoped } from '../storage/pages';
import { adminPage, type AdminPageQuery } from '../readback/list-page';

/** The operator's people, oldest first. */
/** A page of the operator's people, in the order they joined. */
export function listOperators(ctx: AccountsContext, query: AdminPageQuery) {
  return adminPage((page) => pageOperatorsUnscoped(ctx.db, page), query, (rows) => rows.map(presentUser));
}

export { inviteOperator };

/** The open invitations to the operator's people, newest first. */
export function listOperatorInvitations(ctx: AccountsContext, query: AdminPageQuery) {
  return listOpenInvitations(ctx, null, query, unknownCursor);
}

/** Revokes an open invitation to the operator's people. */
export function revokeOperatorInvitation(ctx: AccountsContext, actor: Actor, id: string) {
  return revokeInvitation(ctx, null, actor, id, () => new AdminNotFoundError('Invitation not found.', `No open invitation ${id} to the operator's people; GET /admin/v1/operators/invitations lists them.`));
}

const unknownCursor = (cursor: string) => new AdminNotFoundError('Unknown starting_after.', `${cursor} is not an item of this list; pass the next_starting_after of the previous page.`);

const operatorNotFound = (id: string) => new AdminNotFoundError('Operator not found.', `No operator ${id}; GET /admin/v1/operators lists them.`);

/** Changes the role of one of the operator's people: their sessions take it with their next call (the guard reads the person as stored). */
export async function changeOperatorRole(ctx: AccountsContext, actor: Actor, id: string, role: OperatorRole) {
  return ctx.db.transaction(async (trx) => {
    const before = await findAccountByIdUnscoped(trx, id);
    if (!before || !isOperator(before)) throw operatorNotFound(id);
    const updated = (await updateOperatorRoleUnscoped(trx, id, role))!;
    const revoked = await revokeInvitationsOfInviter(trx, before, role);
    await recordAudit(trx, { merchantId: null, actor, action: 'operator.role_changed', target: id, details: { email: updated.email, from: before.role, to: role, ...revokedDetail(revoked) } });
    return presentUser(updated);
  });
}

/** Removes one of the operator's people: their row goes, and with it every session of theirs, so their next call is 401. */
export async function removeOperator(ctx: AccountsContext, actor: Actor, id: string) {
  await ctx.db.transaction(async (trx) => {
    const removed = await deleteOperatorUnscoped(trx, id);
    if (!removed) throw operatorNotFound(id);
    const revoked = await revokeInvitationsOfInviter(trx, removed, null);
    await recordAudit(trx, { merchantId: null, actor, action: 'operator.removed', target: id, details: { email: removed.email, role: removed.role, ...revokedDetail(revoked) } });
  });
  return { id, removed: true as const };
}
