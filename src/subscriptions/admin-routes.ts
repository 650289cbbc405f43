import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { adminActorOf } from '../identity/admin-guard';
import { parseOrThrow } from '../http/validate';
import { AdvanceClockBody, CancelBody, CustomerClockBody, PaymentMethodBody, SubscriptionListQuery } from './schemas';
import { advanceTestClock, cancelAdminSubscription, changePaymentMethod, getAdminSubscription, listAdminSubscriptions, setCustomerTestClock } from './service';

/** The dashboard's subscriptions: list, read, cancel (now or at period end), and sandbox test clocks. */
export function subscriptionAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  router.get('/subscriptions', async (req, res) => {
    res.json(await listAdminSubscriptions(deps, parseOrThrow(SubscriptionListQuery, req.query, 'Query')));
  });

  router.get('/subscriptions/:id', async (req, res) => {
    res.json(await getAdminSubscription(deps, req.params.id!));
  });

  router.post('/subscriptions/:id/cancel', async (req, res) => {
    res.json(await cancelAdminSubscription(deps, req.params.id!, parseOrThrow(CancelBody, req.body ?? {}), adminActorOf(req)));
  });

  router.post('/subscriptions/:id/payment_method', async (req, res) => {
    res.json(await changePaymentMethod(deps, req.params.id!, parseOrThrow(PaymentMethodBody, req.body ?? {}), adminActorOf(req)));
  });

  router.post('/subscriptions/:id/test_clock/advance', async (req, res) => {
    res.json(await advanceTestClock(deps, req.params.id!, parseOrThrow(AdvanceClockBody, req.body ?? {})));
  });

  router.post('/customers/:id/test_clock', async (req, res) => {
    res.json(await setCustomerTestClock(deps, req.params.id!, parseOrThrow(CustomerClockBody, req.body ?? {})));
  });

  return router;
}
