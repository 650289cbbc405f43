import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { merchantOf, requireMerchant } from '../http/auth';
import { parseOrThrow } from '../http/validate';
import { ChargeListQuery, CheckoutListQuery, EventListQuery, PageQuery } from './schemas';
import { getCheckoutDetail, getEvent, getRefund, getStoredCustomer, listCharges, listCheckouts, listEvents, listRefunds } from './service';

/**
 * Reading back, for merchants: GET routes beside the contract's nine operations (extensions).
 * Mounted at /api/v1 after the contract's routers; each route authenticates with the API key.
 */
export function readbackRoutes({ db }: AppDeps): Router {
  const router = Router();
  const auth = requireMerchant(db, 'api_key');

  router.get('/checkouts', auth, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(CheckoutListQuery, req.query, 'Query');
    res.json(await listCheckouts(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters));
  });
  router.get('/checkouts/:id', auth, async (req, res) => {
    res.json(await getCheckoutDetail(db, merchantOf(req).id, String(req.params.id)));
  });
  router.get('/customers/:id', auth, async (req, res) => {
    res.json(await getStoredCustomer(db, merchantOf(req).id, String(req.params.id)));
  });
  router.get('/charges', auth, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(ChargeListQuery, req.query, 'Query');
    res.json(await listCharges(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters));
  });
  router.get('/refunds', auth, async (req, res) => {
    const { limit, starting_after } = parseOrThrow(PageQuery, req.query, 'Query');
    res.json(await listRefunds(db, merchantOf(req).id, { limit, startingAfter: starting_after }));
  });
  router.get('/refunds/:id', auth, async (req, res) => {
    res.json(await getRefund(db, merchantOf(req).id, String(req.params.id)));
  });
  router.get('/events', auth, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(EventListQuery, req.query, 'Query');
    res.json(await listEvents(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters, true));
  });
  router.get('/events/:id', auth, async (req, res) => {
    res.json(await getEvent(db, merchantOf(req).id, String(req.params.id)));
  });
  router.get('/event_log', auth, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(EventListQuery, req.query, 'Query');
    res.json(await listEvents(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters, false));
  });

  return router;
}
