import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { merchantOf } from '../http/auth';
import { parseOrThrow } from '../http/validate';
import { ChargeListQuery, CheckoutListQuery, EventListQuery, PageQuery } from './schemas';
import { getCheckoutDetail, getEvent, getRefund, getStoredCustomer, listCharges, listCheckouts, listEvents, listRefunds } from './service';
import { merchantCredential, route } from '../identity';

/**
 * Reading back, for merchants: GET routes beside the contract's nine operations (extensions).
 * Mounted at /api/v1 after the contract's routers; each route authenticates with the API key.
 */
export function readbackRoutes({ db }: AppDeps): Router {
  const router = Router();
  const apiKey = merchantCredential(db, 'api_key');

  route(router, 'get', '/checkouts', apiKey, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(CheckoutListQuery, req.query, 'Query');
    res.json(await listCheckouts(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters));
  });
  route(router, 'get', '/checkouts/:id', apiKey, async (req, res) => {
    res.json(await getCheckoutDetail(db, merchantOf(req).id, String(req.params.id)));
  });
  route(router, 'get', '/customers/:id', apiKey, async (req, res) => {
    res.json(await getStoredCustomer(db, merchantOf(req).id, String(req.params.id)));
  });
  route(router, 'get', '/charges', apiKey, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(ChargeListQuery, req.query, 'Query');
    res.json(await listCharges(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters));
  });
  route(router, 'get', '/refunds', apiKey, async (req, res) => {
    const { limit, starting_after } = parseOrThrow(PageQuery, req.query, 'Query');
    res.json(await listRefunds(db, merchantOf(req).id, { limit, startingAfter: starting_after }));
  });
  route(router, 'get', '/refunds/:id', apiKey, async (req, res) => {
    res.json(await getRefund(db, merchantOf(req).id, String(req.params.id)));
  });
  route(router, 'get', '/events', apiKey, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(EventListQuery, req.query, 'Query');
    res.json(await listEvents(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters, true));
  });
  route(router, 'get', '/events/:id', apiKey, async (req, res) => {
    res.json(await getEvent(db, merchantOf(req).id, String(req.params.id)));
  });
  route(router, 'get', '/event_log', apiKey, async (req, res) => {
    const { limit, starting_after, ...filters } = parseOrThrow(EventListQuery, req.query, 'Query');
    res.json(await listEvents(db, merchantOf(req).id, { limit, startingAfter: starting_after }, filters, false));
  });

  return router;
}
