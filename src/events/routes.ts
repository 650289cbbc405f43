import { Router } from 'express';
import { z } from 'zod';
import { adminListLimit } from '../admin/schemas';
import type { AppDeps } from '../app-deps';
import { EVENT_TYPES } from '../domain/event-catalog';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { getEventForOperator, listEventLogForOperator, resendEvent } from './service';

const EventListQuery = z.object({
  merchant_id: z.string().min(1).optional(),
  // Refused outside the catalog, as on the merchant's lists (src/readback/schemas.ts).
  type: z.enum(EVENT_TYPES).optional(),
  checkout_id: z.string().min(1).optional(),
  charge_id: z.string().min(1).optional(),
  limit: adminListLimit,
});

/** The event log (newest first, with every delivery attempt) and resend. */
export function eventAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  router.get('/events', async (req, res) => {
    const q = parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query');
    res.json({ results: await listEventLogForOperator(deps.db, { merchantId: q.merchant_id, type: q.type, checkoutId: q.checkout_id, chargeId: q.charge_id, limit: q.limit }) });
  });

  router.get('/events/:id', async (req, res) => {
    res.json(await getEventForOperator(deps.db, req.params.id!));
  });

  router.post('/events/:id/resend', async (req, res) => {
    parseEmptyBody(req.body);
    res.status(202).json(await resendEvent(deps, req.params.id!));
  });

  return router;
}
