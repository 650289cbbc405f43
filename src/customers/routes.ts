import { Router } from 'express';
import { checkedInStatement } from '../http/auth';
import { idempotent } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import type { AppDeps } from '../app-deps';
import { CustomerCreateBody, CustomerSearchQuery, CustomerUpdateBody } from './schemas';
import { changeCustomer, createCustomer, customerNotFound, findCustomers, presentCustomer, presentSearchResult, presentUpdatedCustomer } from './service';
import { merchantCredential, route } from '../identity';

export function customerRoutes(deps: AppDeps): Router {
  const { db } = deps;
  const router = Router();
  // Each route's one statement also checks the credential (checkedInStatement): one round trip.
  const apiKey = merchantCredential(db, 'api_key', undefined, 'statement');
  router.use(...apiKey.guards);

  route(router, 'post', '/', apiKey, idempotent(deps), async (req, res) => {
    // Inside the check, so a refusal of the body stands only for a credential proven valid.
    const created = await checkedInStatement(db, req, (merchant, _stillActive, guard) => createCustomer(db, merchant, parseOrThrow(CustomerCreateBody, req.body), guard));
    if (!created) throw new Error('a customer insert whose credential check held wrote no row');
    res.status(201).json(presentCustomer(created));
  });

  route(router, 'get', '/search', apiKey, async (req, res) => {
    const rows = await checkedInStatement(db, req, (merchant, stillActive) => findCustomers(db, merchant, parseOrThrow(CustomerSearchQuery, req.query, 'Search query'), stillActive));
    res.json({ results: (rows ?? []).map(presentSearchResult) });
  });

  route(router, 'patch', '/:id', apiKey, async (req, res) => {
    const id = req.params.id!;
    const updated = await checkedInStatement(db, req, (merchant, stillActive) => changeCustomer(db, merchant, id, parseOrThrow(CustomerUpdateBody, req.body ?? {}), stillActive));
    if (!updated) throw customerNotFound(id);
    res.json(presentUpdatedCustomer(updated));
  });

  return router;
}
