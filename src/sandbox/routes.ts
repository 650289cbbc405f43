import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../app-deps';
import { CHARGE_STATUSES } from '../domain/charge-states';
import { parseOrThrow } from '../http/validate';
import { simulateChargeMove } from './service';
import { operator, route } from '../identity';

const TransitionBody = z
  .object({
    to: z.enum(CHARGE_STATUSES),
    failure_code: z.string().min(1).max(64).optional(),
    failure_message: z.string().min(1).max(500).optional(),
  })
  .strict();

/** The processor simulator (sandbox only): POST /admin/v1/sandbox/charges/{id}/transition (see simulateChargeMove). */
export function sandboxAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'post', '/sandbox/charges/:id/transition', operator('sandbox'), async (req, res) => {
    const body = parseOrThrow(TransitionBody, req.body);
    res.json(await simulateChargeMove(deps, req.params.id!, body));
  });
  return router;
}
