import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { replayEvents } from '../events/replay';
import { adminActorOf, operator, route } from '../identity';
import { settingsCatalog } from './catalog';
import { parseOrThrow } from '../http/validate';
import { AdminSearchQuery, EventReplayBody, MerchantListQuery, RestrictedCustomersQuery } from './schemas';
import { getOperatorCheckout, getOperatorTimeline, listMerchants, listRestrictedCustomers, searchCharges, searchCheckouts } from './service';

/** The dashboard's data routes (admin API): search, the checkout timeline, replay by filter, restricted customers. */
export function adminDataRoutes(deps: AppDeps): Router {
  const { db } = deps;
  const router = Router();

  route(router, 'get', '/settings_catalog', operator('read'), (_req, res) => {
    res.json(settingsCatalog());
  });
  route(router, 'get', '/merchants', operator('read'), async (req, res) => {
    res.json(await listMerchants(db, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });
  route(router, 'get', '/checkouts', operator('read'), async (req, res) => {
    res.json(await searchCheckouts(db, parseOrThrow(AdminSearchQuery, req.query, 'Query')));
  });
  route(router, 'get', '/checkouts/:id', operator('read'), async (req, res) => {
    res.json(await getOperatorCheckout(deps, String(req.params.id)));
  });
  route(router, 'get', '/checkouts/:id/timeline', operator('read'), async (req, res) => {
    res.json(await getOperatorTimeline(deps, String(req.params.id)));
  });
  route(router, 'get', '/charges', operator('read'), async (req, res) => {
    res.json(await searchCharges(db, parseOrThrow(AdminSearchQuery, req.query, 'Query')));
  });
  route(router, 'get', '/customers/restricted', operator('read'), async (req, res) => {
    res.json(await listRestrictedCustomers(db, parseOrThrow(RestrictedCustomersQuery, req.query, 'Query')));
  });
  route(router, 'post', '/events/replay', operator('events'), async (req, res) => {
    const body = parseOrThrow(EventReplayBody, req.body ?? {});
    const filter = {
      type: body.type,
      merchantId: body.merchant_id,
      from: body.from ? new Date(body.from) : undefined,
      to: body.to ? new Date(body.to) : undefined,
      failedOnly: body.failed_only,
    };
    res.status(body.dry_run ? 200 : 202).json(await replayEvents(deps, filter, body.dry_run, adminActorOf(req)));
  });

  return router;
}
