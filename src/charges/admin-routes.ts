import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { adminActorOf, operator, route } from '../identity';
import { EVERY_MERCHANT } from '../identity/context';
import { assertNoRefundBody, refundCharge } from './refund';

/** The dashboard refund: the same rules, result and event as the public endpoint, for any merchant. */
export function chargeAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'post', '/charges/:id/refund', operator('refunds'), async (req, res) => {
    assertNoRefundBody(req.body);
    res.json(await refundCharge(deps, req.params.id!, { source: 'dashboard', actor: adminActorOf(req), scope: EVERY_MERCHANT }));
  });
  return router;
}
