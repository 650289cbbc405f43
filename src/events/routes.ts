import { Router } from 'express';
import { z } from 'zod';
import { adminListLimit, startingAfter } from '../admin/schemas';
import type { AppDeps } from '../app-deps';
import { EVENT_TYPES } from '../domain/event-catalog';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { adminActorOf, operator, route } from '../identity';
import { EVERY_MERCHANT } from '../identity/context';
import { getEventForOperator, listEventLogForOperator, resendEvent } from './service';

const EventListQuery = z.object({
  merchant_id: z.string().min(1).optional(),
  // Refused outside the catalog, as on the merchant's lists (src/readback/schemas.ts).
  type: z.enum(EVENT_TYPES).optional(),
  checkout_id: z.string().min(1).optional(),
  charge_id: z.string().min(1).optional(),
  limit: adminListLimit,
  starting_after: startingAfter,
});

/** The event log (newest first, with every delivery attempt) and resend. */
export function eventAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  route(router, 'get', '/events', operator('read'), async (req, res) => {
    res.json(await listEventLogForOperator(deps.db, parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query')));
  });

  route(router, 'get', '/events/:id', operator('read'), async (req, res) => {
    res.json(await getEventForOperator(deps.db, req.params.id!));
  });

  route(router, 'post', '/events/:id/resend', operator('events'), async (req, res) => {
    parseEmptyBody(req.body);
    res.status(202).json(await resendEvent(deps, adminActorOf(req), req.params.id!, EVERY_MERCHANT));
  });

  return router;
}
