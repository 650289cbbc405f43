import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { idempotent, idempotentId } from '../http/idempotency';
import { merchantOf, requireMerchant } from '../http/auth';
import { loadPresentedCharge } from './load';
import { assertNoRefundBody, refundCharge } from './refund';

export function chargeRoutes(deps: AppDeps): Router {
  const router = Router();
  router.use(requireMerchant(deps.db, 'api_key'));

  router.get('/:id', async (req, res) => {
    res.json(await loadPresentedCharge(deps.db, merchantOf(req).id, req.params.id!));
  });

  // No body: the full amount is always refunded.
  router.post('/:id/refund', idempotent(deps), async (req, res) => {
    assertNoRefundBody(req.body);
    res.json(await refundCharge(deps, String(req.params.id), { source: 'api', merchantId: merchantOf(req).id, requestRef: idempotentId(req, 'refund') }));
  });

  return router;
}
