import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { parseEmptyBody } from '../http/validate';
import { adminActorOf, operator, route } from '../identity';
import { EVERY_MERCHANT } from '../identity/context';
import { unrestrictCustomer } from './restrictions';

/** Admin routes for customers; mounted under /admin/v1 behind the admin token. */
export function customerAdminRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'post', '/customers/:id/unrestrict', operator('lift_restrictions'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await unrestrictCustomer(deps, adminActorOf(req), req.params.id!, EVERY_MERCHANT));
  });
  return router;
}
