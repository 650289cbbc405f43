import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { adminActorOf, operator, route } from '../identity';
import { parseOrThrow } from '../http/validate';
import { AdvanceClockBody, CancelBody, CustomerClockBody, PaymentMethodBody, SubscriptionListQuery } from './schemas';
import { advanceTestClock, cancelAdminSubscription, changePaymentMethod, getAdminSubscription, listAdminSubscriptions, setCustomerTestClock } from './service';

/** The dashboard's subscriptions: list, read, cancel (now or at period end), and sandbox test clocks. */
export function subscriptionAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  route(router, 'get', '/subscriptions', operator('read'), async (req, res) => {
    res.json(await listAdminSubscriptions(deps, parseOrThrow(SubscriptionListQuery, req.query, 'Query')));
  });

  route(router, 'get', '/subscriptions/:id', operator('read'), async (req, res) => {
    res.json(await getAdminSubscription(deps, req.params.id!));
  });

  route(router, 'post', '/subscriptions/:id/cancel', operator('subscriptions'), async (req, res) => {
    res.json(await cancelAdminSubscription(deps, req.params.id!, parseOrThrow(CancelBody, req.body ?? {}), adminActorOf(req)));
  });

  route(router, 'post', '/subscriptions/:id/payment_method', operator('subscriptions'), async (req, res) => {
    res.json(await changePaymentMethod(deps, req.params.id!, parseOrThrow(PaymentMethodBody, req.body ?? {}), adminActorOf(req)));
  });

  route(router, 'post', '/subscriptions/:id/test_clock/advance', operator('subscriptions'), async (req, res) => {
    res.json(await advanceTestClock(deps, req.params.id!, parseOrThrow(AdvanceClockBody, req.body ?? {})));
  });

  route(router, 'post', '/customers/:id/test_clock', operator('subscriptions'), async (req, res) => {
    res.json(await setCustomerTestClock(deps, req.params.id!, parseOrThrow(CustomerClockBody, req.body ?? {})));
  });

  return router;
}
