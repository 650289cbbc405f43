import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { assertNoRefundBody, refundCharge } from '../charges/refund';
import { idempotent } from '../http/idempotency';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { RollSigningSecretBody } from '../merchants/schemas';
import { changeSettings, issueKey, revokeKey, rollSigningSecret } from '../merchants/service';
import { resendEvent } from '../events/service';
import { decideReview } from '../reviews/service';
import { unrestrictCustomer } from '../customers/restrictions';
import { sessionActor } from '../identity/sessions';
import type { MerchantSession } from '../identity/sessions';
import { EventListQuery, PageQuery } from '../readback/schemas';
import { enabledEvents, eventLogPage, getWebhook, listMerchantKeys, merchantEvent } from './developers';
import type { MerchantAccounts } from '../identity/index';
import { allow, merchantSessionOf } from '../identity/middleware';
import { customersPage } from './customers';
import { chargesPage, checkoutsPage, merchantCheckout, merchantTimeline } from './payments';
import { merchantHome } from './home';
import { reviewQueuePage } from './reviews';
import { CustomerSearchQuery, EnabledEventsBody, PaymentSearchQuery, ReviewQueueQuery, WebhookUrlBody } from '../identity/schemas';

/** A person acts on their own merchant's records only: the session decides the scope. */
const ownMerchant = (session: MerchantSession) => ({ merchantId: session.merchant.id });

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
    const signedIn = merchantSessionOf(req);
    res.status(201).json(await issueKey(deps, sessionActor(signedIn), signedIn.merchant.id));
  });
  router.delete('/developers/api_keys/:keyPrefix', session, allow('developers'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.json(await revokeKey(deps, sessionActor(signedIn), signedIn.merchant.id, String(req.params.keyPrefix)));
  });

  router.get('/developers/webhook', session, allow('read'), async (req, res) => {
    res.json(await getWebhook(deps, merchantSessionOf(req)));
  });
  router.put('/developers/webhook', session, allow('developers'), async (req, res) => {
    const { webhook_url } = parseOrThrow(WebhookUrlBody, req.body);
    const signedIn = merchantSessionOf(req);
    await changeSettings(deps, sessionActor(signedIn), signedIn.merchant.id, { webhook_url });
    res.json(await getWebhook(deps, signedIn));
  });
  // With an Idempotency-Key a retried roll answers the secret of the first, rolled once (keys of the merchant's dashboard, apart from its API's).
  const rollOnce = idempotent(deps, { scope: (req) => `dashboard:${merchantSessionOf(req).merchant.id}` });
  router.post('/developers/webhook/signing_secret/roll', session, allow('developers'), rollOnce, async (req, res) => {
    const body = parseOrThrow(RollSigningSecretBody, req.body ?? {});
    const signedIn = merchantSessionOf(req);
    res.status(201).json(await rollSigningSecret(deps, sessionActor(signedIn), signedIn.merchant.id, body));
  });

  router.get('/developers/enabled_events', session, allow('read'), async (req, res) => {
    res.json(await enabledEvents(deps, merchantSessionOf(req).merchant.id));
  });
  router.put('/developers/enabled_events', session, allow('developers'), async (req, res) => {
    const { enabled_events } = parseOrThrow(EnabledEventsBody, req.body);
    const signedIn = merchantSessionOf(req);
    await changeSettings(deps, sessionActor(signedIn), signedIn.merchant.id, { enabled_events });
    res.json(await enabledEvents(deps, signedIn.merchant.id));
  });

  router.get('/developers/events', session, allow('read'), async (req, res) => {
    res.json(await eventLogPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.get('/developers/events/:id', session, allow('read'), async (req, res) => {
    res.json(await merchantEvent(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  router.post('/developers/events/:id/resend', session, allow('developers'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.status(202).json(await resendEvent(deps, sessionActor(signedIn), String(req.params.id), ownMerchant(signedIn)));
  });

  router.get('/reviews', session, allow('read'), async (req, res) => {
    res.json(await reviewQueuePage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(ReviewQueueQuery, withoutBlankParameters(req.query), 'Query')));
  });
  for (const [path, decision] of [['approve', 'approved'], ['decline', 'declined']] as const) {
    router.post(`/reviews/:id/${path}`, session, allow('decide_reviews'), async (req, res) => {
      parseEmptyBody(req.body);
      const signedIn = merchantSessionOf(req);
      res.json(await decideReview(deps, sessionActor(signedIn), String(req.params.id), decision, ownMerchant(signedIn)));
    });
  }

  router.get('/customers', session, allow('read'), async (req, res) => {
    res.json(await customersPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(CustomerSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  router.post('/customers/:id/unrestrict', session, allow('lift_restrictions'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.json(await unrestrictCustomer(deps, sessionActor(signedIn), String(req.params.id), ownMerchant(signedIn)));
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
    const signedIn = merchantSessionOf(req);
    res.json(await refundCharge(deps, String(req.params.id), { source: 'dashboard', actor: sessionActor(signedIn), scope: ownMerchant(signedIn) }));
  });

  return router;
}
