import { Router } from 'express';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import type { AccountsContext } from './context';
import { adminActorOf } from './admin-guard';
import { MerchantListQuery } from '../admin/schemas';
import { AuditLogQuery, OperatorInvitationBody, OperatorRoleBody } from './operator-schemas';
import { operatorAuditLogPage } from './audit';
import { recoverOperatorAuthenticator } from './authenticator-recovery';
import { changeOperatorRole, inviteOperator, listOperatorInvitations, listOperators, removeOperator, revokeOperatorInvitation } from './operators';
import { operator, route } from './route-access';

/** The operator's people and the whole audit log; mounted under /admin/v1 behind the admin token or an operator_admin's session. */
export function operatorAdminRoutes(ctx: AccountsContext): Router {
  const router = Router();
  route(router, 'get', '/operators', operator('operators'), async (req, res) => {
    res.json(await listOperators(ctx, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });
  route(router, 'post', '/operators/invitations', operator('operators'), async (req, res) => {
    res.status(201).json(await inviteOperator(ctx, adminActorOf(req), parseOrThrow(OperatorInvitationBody, req.body)));
  });
  route(router, 'get', '/operators/invitations', operator('operators'), async (req, res) => {
    res.json(await listOperatorInvitations(ctx, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });
  route(router, 'delete', '/operators/invitations/:id', operator('operators'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeOperatorInvitation(ctx, adminActorOf(req), req.params.id as string));
  });
  route(router, 'patch', '/operators/:id', operator('operators'), async (req, res) => {
    const { role } = parseOrThrow(OperatorRoleBody, req.body);
    res.json(await changeOperatorRole(ctx, adminActorOf(req), req.params.id as string, role));
  });
  route(router, 'get', '/audit-log', operator('operators'), async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(AuditLogQuery, req.query, 'Query');
    res.json(await operatorAuditLogPage(ctx.db, filters, { limit, starting_after }));
  });
  route(router, 'post', '/operators/:id/authenticator-recovery', operator('operators'), async (req, res) => {
    parseEmptyBody(req.body);
    const actor = adminActorOf(req);
    res.status(201).json(await recoverOperatorAuthenticator(ctx, { actor, name: actor.kind === 'operator' ? actor.email : 'The operator' }, req.params.id as string));
  });
  route(router, 'delete', '/operators/:id', operator('operators'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await removeOperator(ctx, adminActorOf(req), req.params.id as string));
  });
  return router;
}
