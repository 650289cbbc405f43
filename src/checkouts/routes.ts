import { Router } from 'express';
import { checkedInStatement } from '../http/auth';
import { idempotent, idempotentId } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import type { AppDeps } from '../app-deps';
import { customerNotFound } from '../customers/service';
import { CheckoutCreateBody } from './schemas';
import { createCheckout } from './service';
import { presentCheckout } from './present';
import { merchantCredential, route } from '../identity';

export function checkoutRoutes(deps: AppDeps): Router {
  const { db, temporal, config } = deps;
  const router = Router();
  // The checkout's INSERT also checks the credential (checkedInStatement): one database round trip.
  const apiKey = merchantCredential(db, 'api_key', undefined, 'statement');
  router.use(...apiKey.guards);

  route(router, 'post', '/', apiKey, idempotent(deps), async (req, res) => {
    let customerId = '';
    // Inside the check, so a refusal of the body stands only for a credential proven valid.
    const created = await checkedInStatement(db, req, (merchant, _stillActive, credential) => {
      const body = parseOrThrow(CheckoutCreateBody, req.body);
      customerId = body.customer_id;
      return createCheckout({ db, temporal, config, sealer: deps.sealer }, merchant, body, { id: idempotentId(req, 'checkout'), credential });
    });
    // Another merchant's customer is reported exactly like a missing one.
    if (!created) throw customerNotFound(customerId);
    // Read per request, not when the router is built: the test harness sets it once the port is known.
    res.status(201).json(presentCheckout(created.checkout, created.clientSecret, config.walletBaseUrl));
  });

  return router;
}
