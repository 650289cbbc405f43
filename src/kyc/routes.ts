import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { merchantOf } from '../http/auth';
import { idempotent } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import { KycUpsertBody } from './schemas';
import { assertKycEnabled, presentKycRecord, upsertKycRecord } from './service';
import { merchantCredential, route } from '../identity';

export function kycRoutes(deps: AppDeps): Router {
  const router = Router();
  const apiKey = merchantCredential(deps.db, 'api_key');
  router.use(...apiKey.guards);

  route(router, 'post', '/upsert', apiKey, idempotent(deps), async (req, res) => {
    const merchant = merchantOf(req);
    // A disabled account learns that first, whatever it sent.
    assertKycEnabled(merchant);
    const body = parseOrThrow(KycUpsertBody, req.body);
    const { record, created } = await upsertKycRecord(deps, merchant, body);
    res.status(created ? 201 : 200).json(presentKycRecord(record));
  });

  return router;
}
