import cors from 'cors';
import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { CoordinatesBody } from '../device-pings/schemas';
import { assertDevicePingsEnabled, presentDevicePing, recordDevicePing } from '../device-pings/service';
import { idempotent, idempotentAttemptId } from '../http/idempotency';
import { parseOrThrow } from '../http/validate';
import { AttemptBody } from './attempt-schemas';
import { submitAttempt } from './attempts';
import { checkoutOf, readViewOnArrival, requireCheckoutSecret } from './auth';
import { loadWalletView, presentWalletCheckout } from './read';
import { merchantOfCheckout } from './service';
import { customerNotFound } from '../customers/service';
import { access, route } from '../identity';

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

  // What the hosted page shows. Its Cache-Control: no-store is every API answer's (src/http/answer-headers.ts).
  // The view's other reads are sent with the checkout's lookup, before the secret is checked.
  const checkoutSecret = access({ kind: 'checkout_secret' }, requireCheckoutSecret(db));
  route(router, 'get', '/checkouts/:id', access({ kind: 'checkout_secret' }, readViewOnArrival(db), requireCheckoutSecret(db)), async (req, res) => {
    res.json(presentWalletCheckout(await loadWalletView(db, checkoutOf(req), req.walletViewReads)));
  });

  // One payment attempt per call: the charge (201), or the review a withdrawal paused for (202).
  route(router, 'post', '/checkouts/:id/attempts', checkoutSecret, idempotent(deps), async (req, res) => {
    const body = parseOrThrow(AttemptBody, req.body);
    const answer = await submitAttempt(deps, checkoutOf(req), body, { keyedAttemptId: idempotentAttemptId(req), clientIp: req.ip ?? null });
    if (answer.kind === 'review') res.status(202).json({ review: answer.review });
    else res.status(201).json({ charge: answer.charge });
  });

  // The hosted page's own ping for the checkout's customer: the same service as POST
  // /api/v1/device_pings (30-minute reuse, 404 when disabled), the same answer; the checkout's
  // client_secret stands in for the merchant's.
  route(router, 'post', '/checkouts/:id/device_pings', checkoutSecret, idempotent(deps), async (req, res) => {
    const found = checkoutOf(req);
    const merchant = await merchantOfCheckout(db, found);
    // Same order as the public endpoint: a disabled account answers 404 whatever was sent.
    assertDevicePingsEnabled(merchant);
    const body = parseOrThrow(CoordinatesBody, req.body);
    const result = await recordDevicePing(deps, merchant, found.checkout.customer_id, body, req.ip ?? null);
    if (!result) throw customerNotFound(found.checkout.customer_id);
    res.status(201).json(presentDevicePing(result));
  });

  return router;
}
