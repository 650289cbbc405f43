import { Router } from 'express';
import { merchantOf, requireMerchant } from '../http/auth';
import { idempotent } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import type { AppDeps } from '../app-deps';
import { CustomerCreateBody, CustomerSearchQuery, CustomerUpdateBody } from './schemas';
import { changeCustomer, createCustomer, findCustomers, presentCustomer, presentSearchResult, presentUpdatedCustomer } from './service';

export function customerRoutes(deps: AppDeps): Router {
  const { db } = deps;
  const router = Router();
  router.use(requireMerchant(db, 'api_key'));

  router.post('/', idempotent(deps), async (req, res) => {
    const body = parseOrThrow(CustomerCreateBody, req.body);
    res.status(201).json(presentCustomer(await createCustomer(db, merchantOf(req), body)));
  });

  router.get('/search', async (req, res) => {
    const query = parseOrThrow(CustomerSearchQuery, req.query, 'Search query');
    const rows = await findCustomers(db, merchantOf(req), query);
    res.json({ results: rows.map(presentSearchResult) });
  });

  router.patch('/:id', async (req, res) => {
    const body = parseOrThrow(CustomerUpdateBody, req.body ?? {});
    res.json(presentUpdatedCustomer(await changeCustomer(db, merchantOf(req), req.params.id!, body)));
  });

  return router;
}
