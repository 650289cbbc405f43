import { Router } from 'express';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import { ADMIN_IDEMPOTENCY_SCOPE, idempotent } from '../http/idempotency';
import type { AppDeps } from '../app-deps';
import { MerchantCreateBody, RollSigningSecretBody, SettingsPatchBody } from './schemas';
import { MerchantListQuery } from '../admin/schemas';
import { adminActorOf, operator, route } from '../identity';
import { changeSettings, getMerchant, issueKey, listKeys, merchantServiceOptions, onboardMerchant, presentMerchant, revokeKey, rollSigningSecret } from './service';

/** Admin routes for merchants; mounted under /admin/v1 behind the admin token or an operator session (changes go to the merchant's audit log). */
export function merchantAdminRoutes(deps: AppDeps): Router {
  const { db, sealer } = deps;
  const router = Router();

  route(router, 'post', '/merchants', operator('merchants'), async (req, res) => {
    const body = parseOrThrow(MerchantCreateBody, req.body);
    res.status(201).json(await onboardMerchant(db, merchantServiceOptions(deps), body));
  });

  route(router, 'get', '/merchants/:id', operator('read'), async (req, res) => {
    res.json(presentMerchant(await getMerchant(db, req.params.id!)));
  });

  route(router, 'patch', '/merchants/:id/settings', operator('merchants'), async (req, res) => {
    const patch = parseOrThrow(SettingsPatchBody, req.body);
    res.json(await changeSettings(deps, adminActorOf(req), req.params.id!, patch));
  });

  // With an Idempotency-Key a retried roll answers the secret of the first, rolled once.
  route(router, 'post', '/merchants/:id/webhook_secret/roll', operator('merchants'), idempotent({ db, sealer }, { scope: ADMIN_IDEMPOTENCY_SCOPE }), async (req, res) => {
    const body = parseOrThrow(RollSigningSecretBody, req.body ?? {});
    res.status(201).json(await rollSigningSecret(deps, adminActorOf(req), req.params.id as string, body));
  });

  route(router, 'get', '/merchants/:id/api_keys', operator('read'), async (req, res) => {
    res.json(await listKeys(db, req.params.id!, parseOrThrow(MerchantListQuery, req.query, 'Query')));
  });

  route(router, 'post', '/merchants/:id/api_keys', operator('merchants'), async (req, res) => {
    parseEmptyBody(req.body);
    res.status(201).json(await issueKey(deps, adminActorOf(req), req.params.id!));
  });

  route(router, 'delete', '/merchants/:id/api_keys/:keyPrefix', operator('merchants'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeKey(deps, adminActorOf(req), req.params.id!, req.params.keyPrefix!));
  });

  return router;
}
