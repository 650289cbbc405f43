import { Router } from 'express';
import { pipeline } from 'node:stream';
import type { AppDeps } from '../app-deps';
import { assertNoRefundBody } from '../charges/refund';
import { idempotent } from '../http/idempotency';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { RollSigningSecretBody } from '../merchants/schemas';
import { EventListQuery, PageQuery } from '../readback/schemas';
import {
  enabledEvents, eventLogPage, getWebhook, issueMerchantKey, listMerchantKeys, merchantEvent, resendMerchantEvent, revokeMerchantKey, rollMerchantSigningSecret, setEnabledEvents, setWebhookUrl,
} from './developers';
import type { MerchantAccounts } from '../identity/index';
import { allow, merchantSessionOf } from '../identity/middleware';
import { customersPage, liftRestriction } from './customers';
import { chargesPage, checkoutsPage, merchantCheckout, merchantTimeline, refundMerchantCharge } from './payments';
import { merchantHome } from './home';
import { paymentsCsv, paymentsPage } from './payment-list';
import { PaymentFilterQuery, PaymentListQuery } from './payment-schemas';
import { decideMerchantReview, reviewQueuePage } from './reviews';
import { CustomerSearchQuery, EnabledEventsBody, PaymentSearchQuery, ReviewQueueQuery, WebhookUrlBody } from '../identity/schemas';

/**
 * The merchant dashboard's data routes under /merchant/v1 (operator spec, section 7): every one
 * behind the session and the role guard, scoped to the session's merchant.
 */
export function merchantDashboardRoutes(deps: AppDeps, { requireSession: session }: Pick<MerchantAccounts, 'requireSession'>): Router {
  const router = Router();

  router.get('/home', session, allow('read'), async (req, res) => {
    res.json(await merchantHome(deps, merchantSessionOf(req).merchant.id));
  });

  router.get('/developers/api_keys', session, allow('read'), async (req, res) => {
    res.json(await listMerchantKeys(deps, merchantSessionOf(req), parseOrThrow(PageQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.post('/developers/api_keys', session, allow('developers'), async (req, res) => {
    parseEmptyBody(req.body);
    res.status(201).json(await issueMerchantKey(deps, merchantSessionOf(req)));
  });
  router.delete('/developers/api_keys/:keyPrefix', session, allow('developers'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await revokeMerchantKey(deps, merchantSessionOf(req), String(req.params.keyPrefix)));
  });

  router.get('/developers/webhook', session, allow('read'), async (req, res) => {
    res.json(await getWebhook(deps, merchantSessionOf(req)));
  });
  router.put('/developers/webhook', session, allow('developers'), async (req, res) => {
    const { webhook_url } = parseOrThrow(WebhookUrlBody, req.body);
    res.json(await setWebhookUrl(deps, merchantSessionOf(req), webhook_url));
  });
  // With an Idempotency-Key a retried roll answers the secret of the first, rolled once (keys of the merchant's dashboard, apart from its API's).
  const rollOnce = idempotent(deps, { scope: (req) => `dashboard:${merchantSessionOf(req).merchant.id}` });
  router.post('/developers/webhook/signing_secret/roll', session, allow('developers'), rollOnce, async (req, res) => {
    const body = parseOrThrow(RollSigningSecretBody, req.body ?? {});
    res.status(201).json(await rollMerchantSigningSecret(deps, merchantSessionOf(req), body));
  });

  router.get('/developers/enabled_events', session, allow('read'), async (req, res) => {
    res.json(await enabledEvents(deps, merchantSessionOf(req).merchant.id));
  });
  router.put('/developers/enabled_events', session, allow('developers'), async (req, res) => {
    const { enabled_events } = parseOrThrow(EnabledEventsBody, req.body);
    res.json(await setEnabledEvents(deps, merchantSessionOf(req), enabled_events));
  });

  router.get('/developers/events', session, allow('read'), async (req, res) => {
    res.json(await eventLogPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.get('/developers/events/:id', session, allow('read'), async (req, res) => {
    res.json(await merchantEvent(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  router.post('/developers/events/:id/resend', session, allow('developers'), async (req, res) => {
    parseEmptyBody(req.body);
    res.status(202).json(await resendMerchantEvent(deps, merchantSessionOf(req), String(req.params.id)));
  });

  router.get('/reviews', session, allow('read'), async (req, res) => {
    res.json(await reviewQueuePage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(ReviewQueueQuery, withoutBlankParameters(req.query), 'Query')));
  });
  for (const [path, decision] of [['approve', 'approved'], ['decline', 'declined']] as const) {
    router.post(`/reviews/:id/${path}`, session, allow('decide_reviews'), async (req, res) => {
      parseEmptyBody(req.body);
      res.json(await decideMerchantReview(deps, merchantSessionOf(req), String(req.params.id), decision));
    });
  }

  router.get('/customers', session, allow('read'), async (req, res) => {
    res.json(await customersPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(CustomerSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.post('/customers/:id/unrestrict', session, allow('lift_restrictions'), async (req, res) => {
    parseEmptyBody(req.body);
    res.json(await liftRestriction(deps, merchantSessionOf(req), String(req.params.id)));
  });

  router.get('/payments', session, allow('read'), async (req, res) => {
    res.json(await paymentsPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentListQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.get('/payments.csv', session, allow('read'), (req, res) => {
    const file = paymentsCsv(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentFilterQuery, withoutBlankParameters(req.query), 'Query'));
    res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="payments-${new Date().toISOString().slice(0, 10)}.csv"`, 'Cache-Control': 'no-store' });
    // Once the file has started, a failed read can only cut it short: logged, the answer ended.
    pipeline(file, res, (error) => {
      if (error) deps.logger.error({ err: error }, 'the payments export failed');
    });
  });

  router.get('/checkouts', session, allow('read'), async (req, res) => {
    res.json(await checkoutsPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.get('/checkouts/:id', session, allow('read'), async (req, res) => {
    res.json(await merchantCheckout(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  router.get('/checkouts/:id/timeline', session, allow('read'), async (req, res) => {
    res.json(await merchantTimeline(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  router.get('/charges', session, allow('read'), async (req, res) => {
    res.json(await chargesPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.post('/charges/:id/refund', session, allow('refunds'), async (req, res) => {
    assertNoRefundBody(req.body);
    res.json(await refundMerchantCharge(deps, merchantSessionOf(req), String(req.params.id)));
  });

  return router;
}
