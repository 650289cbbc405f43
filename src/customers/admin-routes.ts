import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { presentRestriction, unrestrictCustomer } from './restrictions';

/** Admin routes for customers; mounted under /admin/v1 behind the admin token. */
export function customerAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post('/customers/:id/unrestrict', async (req, res) => {
    res.json(presentRestriction(await unrestrictCustomer(deps, req.params.id!)));
  });
  return router;
}
