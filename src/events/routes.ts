import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../app-deps';
import { EVENT_TYPES } from '../domain/event-catalog';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { findEvent, listEvents } from '../storage/events';
import { findMerchant } from '../storage/merchants';
import { presentEventLog } from './service';
import { redeliverEvent } from './dispatch';

const EventListQuery = z.object({
  merchant_id: z.string().min(1).optional(),
  // Refused outside the catalog, as on the merchant's lists (src/readback/schemas.ts).
  type: z.enum(EVENT_TYPES).optional(),
  checkout_id: z.string().min(1).optional(),
  charge_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** The event log (newest first, with every delivery attempt) and resend. */
export function eventAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  router.get('/events', async (req, res) => {
    const q = parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query');
    const events = await listEvents(deps.db, { merchantId: q.merchant_id, type: q.type, checkoutId: q.checkout_id, chargeId: q.charge_id, limit: q.limit });
    res.json({ results: await presentEventLog(deps.db, events) });
  });

  router.get('/events/:id', async (req, res) => {
    const event = await findEvent(deps.db, req.params.id!);
    if (!event) throw new AdminNotFoundError('Event not found.', `No event ${req.params.id}.`);
    res.json((await presentEventLog(deps.db, [event]))[0]);
  });

  router.post('/events/:id/resend', async (req, res) => {
    parseEmptyBody(req.body);
    const event = await findEvent(deps.db, req.params.id!);
    if (!event) throw new AdminNotFoundError('Event not found.', `No event ${req.params.id}.`);
    if (!event.enabled) {
      throw new ValidationError('This event is not enabled for the merchant.', 'It was off in the merchant\'s enabled_events when it was recorded, so it was never sent and cannot be; enabling it applies to events recorded from then on.');
    }
    if (event.channel === 'hold') throw new ValidationError('A hold is never re-sent.', 'checkout.hold is synchronous and never retried.');
    const merchant = await findMerchant(deps.db, event.merchant_id);
    if (!merchant?.settings.webhook_url) throw new ValidationError('The merchant has no webhook_url.', 'Set webhook_url in the merchant settings, then resend; the event is kept.');
    const series = await redeliverEvent(deps, event.id, 'resend');
    res.status(202).json({ id: event.id, resent: true, series });
  });

  return router;
}
