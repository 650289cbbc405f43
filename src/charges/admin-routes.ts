import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { adminActorOf } from '../identity/admin-guard';
import { refundAsOperator } from '../operator-accounts/actions';
import { assertNoRefundBody } from './refund';

/** The dashboard refund: the same rules, result and event as the public endpoint, for any merchant. */
export function chargeAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post('/charges/:id/refund', async (req, res) => {
    assertNoRefundBody(req.body);
    res.json(await refundAsOperator(deps, adminActorOf(req), req.params.id!));
  });
  return router;
}
