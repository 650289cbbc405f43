import { AdminNotFoundError } from '../http/errors';
import { recordAudit } from '../merchant-accounts/audit';
import type { AccountsContext, Actor } from '../merchant-accounts/context';
import { inviteOperator } from '../merchant-accounts/invitations';
import { presentUser } from '../merchant-accounts/present';
import { deleteOperatorUnscoped, listOperatorsUnscoped } from '../storage/merchant-users';

/** The operator's people, oldest first. */
export async function listOperators(ctx: AccountsContext) {
  return { results: (await listOperatorsUnscoped(ctx.db)).map(presentUser) };
}

export { inviteOperator };

/** Removes one of the operator's people: their row goes, and with it every session of theirs, so their next call is 401. */
export async function removeOperator(ctx: AccountsContext, actor: Actor, id: string) {
  await ctx.db.transaction(async (trx) => {
    const removed = await deleteOperatorUnscoped(trx, id);
    if (!removed) throw new AdminNotFoundError('Operator not found.', `No operator ${id}.`);
    await recordAudit(trx, { merchantId: null, actor, action: 'operator.removed', target: id, details: { email: removed.email, role: removed.role } });
  });
  return { id, removed: true as const };
}
