import { Router } from 'express';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import { ADMIN_IDEMPOTENCY_SCOPE, idempotent } from '../http/idempotency';
import type { AppDeps } from '../app-deps';
import { MerchantCreateBody, RollSigningSecretBody, SettingsPatchBody } from './schemas';
import { MerchantListQuery } from '../admin/schemas';
import { adminActorOf } from '../identity/admin-guard';
import { changeSettings, getMerchant, issueKey, listKeys, merchantServiceOptions, onboardMerchant, presentMerchant, revokeKey, rollSigningSecret } from './service';

/** Admin routes for merchants; mounted under /admin/v1 behind the admin token or an operator session (changes go to the merchant's audit log). */
export function merchantAdminRoutes(deps: AppDeps): Router {
  const { db, sealer } = deps;
  const router = Router();

  router.post('/merchants', async (req, res) => {
    const body = parseOrThrow(MerchantCreateBody, req.body);
    res.status(201).json(await onboardMerchant(db, merchantServiceOptions(deps), body));
  });

  router.get('/merchants/:id', async (req, res) => {
    res.json(presentMerchant(await getMerchant(db, req.params.id!)));
  });

  router.patch('/merchants/:id/settings', async (req, res) => {
    const patch = parseOrThrow(SettingsPatchBody, req.body);
    res.json(await changeSettings(deps, adminActorOf(req), req.params.id!, patch));
  });

  // With an Idempotency-Key a retried roll answers the secret of the first, rolled once.
  router.post('/merchants/:id/webhook_secret/roll', idempotent({ db, sealer }, { scope: ADMIN_IDEMPOTENCY_SCOPE }), async (req, res) => {
    const body = parseOrThrow(RollSigningSecretBody, req.body ?? {});
    res.status(201).json(await rollSigningSecret(deps, adminActorOf(req), req.params.id as string, body));
  });

  router.get('/merchants/:id/api_keys', async (req, res) => {
    res.json(await listKeys(db, req.params.id!, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });

  router.post('/merchants/:id/api_keys', async (req, res) => {
    parseEmptyBody(req.body);
    res.status(201).json(await issueKey(deps, adminActorOf(req), req.params.id!));
  });

  router.delete('/merchants/:id/api_keys/:keyPrefix', async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeKey(deps, adminActorOf(req), req.params.id!, req.params.keyPrefix!));
  });

  return router;
}
