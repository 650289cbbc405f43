import express, { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { receiveStripeEvent } from './stripe';
import { publicRoute, route } from '../identity';

/** Where processors' events arrive: the router is mounted there, so no other request passes through it. */
export const PROCESSOR_EVENTS_PATH = '/processors';

/** Stripe's signature covers the exact bytes sent, so this route reads its body raw, before the JSON parser. */
const STRIPE_WEBHOOK_PATH = '/stripe/webhooks';

/** Events from processors' own accounts (under PROCESSOR_EVENTS_PATH): authenticated by each processor's signature, not by our credentials. */
export function processorEventRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'post', `${STRIPE_WEBHOOK_PATH}/:merchant_id`, publicRoute('a processor\'s event, verified by its signature with the merchant\'s webhook secret'), express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json(await receiveStripeEvent(deps, req.params.merchant_id!, body, req.get('stripe-signature')));
  });
  return router;
}
