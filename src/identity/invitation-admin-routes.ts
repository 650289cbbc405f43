import { Router } from 'express';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import { adminActorOf } from './admin-guard';
import type { AccountsContext } from './context';
import { inviteToMerchant, listMerchantInvitations, revokeMerchantInvitation } from './invitations';
import { MerchantListQuery } from '../admin/schemas';
import { InvitationBody } from './schemas';
import { operator, route } from './route-access';

/** The operator invites a merchant's people; mounted under /admin/v1 behind the admin token or an operator session (the audit log names the operator). */
export function merchantInvitationAdminRoutes(ctx: AccountsContext): Router {
  const router = Router();
  route(router, 'post', '/merchants/:id/invitations', operator('merchants'), async (req, res) => {
    const body = parseOrThrow(InvitationBody, req.body);
    res.status(201).json(await inviteToMerchant(ctx, req.params.id as string, adminActorOf(req), body));
  });
  route(router, 'get', '/merchants/:id/invitations', operator('read'), async (req, res) => {
    res.json(await listMerchantInvitations(ctx, req.params.id as string, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });
  route(router, 'delete', '/merchants/:id/invitations/:invitationId', operator('merchants'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeMerchantInvitation(ctx, req.params.id as string, adminActorOf(req), req.params.invitationId as string));
  });
  return router;
}
