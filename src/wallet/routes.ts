import cors from 'cors';
import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { idempotent } from '../http/idempotency';
import { requireCheckoutSecret } from './auth';
import { getWalletCheckout } from './read';
import { postAttempt } from './attempts';
import { postCheckoutDevicePing } from './device-pings';

/**
 * The wallet API (/wallet/v1), called by the hosted page and by merchants' own front ends.
 * CORS is permissive by contract: every call carries the checkout's own client_secret in a
 * header, never a cookie, so any origin may call it, with any request header a preflight asks
 * for (echoed back: a front end's own X-Request-Id or trace context).
 */
export function walletRoutes(deps: AppDeps): Router {
  const { db } = deps;
  const router = Router();
  router.use(
    cors({
      origin: '*',
      methods: ['GET', 'POST', 'OPTIONS'],
      exposedHeaders: ['Idempotent-Replayed'],
      maxAge: 600,
    }),
  );

  router.get('/checkouts/:id', requireCheckoutSecret(db), getWalletCheckout(deps));
  // The lead's attempts route (src/wallet/attempts.ts): one payment attempt per call.
  router.post('/checkouts/:id/attempts', requireCheckoutSecret(db), idempotent(deps), postAttempt(deps));
  router.post('/checkouts/:id/device_pings', requireCheckoutSecret(db), idempotent(deps), postCheckoutDevicePing(deps));

  return router;
}
