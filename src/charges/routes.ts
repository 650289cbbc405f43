import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { idempotent, idempotentId } from '../http/idempotency';
import { merchantOf } from '../http/auth';
import { loadPresentedCharge } from './load';
import { assertNoRefundBody, refundCharge } from './refund';
import { merchantCredential, route } from '../identity';

export function chargeRoutes(deps: AppDeps): Router {
  const router = Router();
  const apiKey = merchantCredential(deps.db, 'api_key');
  router.use(...apiKey.guards);

  route(router, 'get', '/:id', apiKey, async (req, res) => {
    res.json(await loadPresentedCharge(deps.db, merchantOf(req).id, req.params.id!));
  });

  // No body: the full amount is always refunded.
  route(router, 'post', '/:id/refund', apiKey, idempotent(deps), async (req, res) => {
    assertNoRefundBody(req.body);
    res.json(await refundCharge(deps, String(req.params.id), { source: 'api', merchantId: merchantOf(req).id, requestRef: idempotentId(req, 'refund') }));
  });

  return router;
}
