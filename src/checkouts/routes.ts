import { Router } from 'express';
import { merchantOf } from '../http/auth';
import { idempotent, idempotentId } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import type { AppDeps } from '../app-deps';
import { CheckoutCreateBody } from './schemas';
import { createCheckout } from './service';
import { presentCheckout } from './present';
import { merchantCredential, route } from '../identity';

export function checkoutRoutes(deps: AppDeps): Router {
  const { db, temporal, config } = deps;
  const router = Router();
  const apiKey = merchantCredential(db, 'api_key');
  router.use(...apiKey.guards);

  route(router, 'post', '/', apiKey, idempotent(deps), async (req, res) => {
    const body = parseOrThrow(CheckoutCreateBody, req.body);
    const { checkout, clientSecret } = await createCheckout({ db, temporal, config, sealer: deps.sealer }, merchantOf(req), body, { id: idempotentId(req, 'checkout') });
    // Read per request, not when the router is built: the test harness sets it once the port is known.
    res.status(201).json(presentCheckout(checkout, clientSecret, config.walletBaseUrl));
  });

  return router;
}
