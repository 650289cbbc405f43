import { Router } from 'express';
import { pipeline } from 'node:stream';
import type { AppDeps } from '../app-deps';
import { assertNoRefundBody, refundCharge } from '../charges/refund';
import { throttledAddress } from '../http/admin-token-throttle';
import { idempotent } from '../http/idempotency';
import { parseEmptyBody, parseOrThrow, withoutBlankParameters } from '../http/validate';
import { RollSigningSecretBody } from '../merchants/schemas';
import { changeSettings, issueKey, revealSigningSecret, revokeKey, rollSigningSecret } from '../merchants/service';
import { resendEvent } from '../events/service';
import { decideReview } from '../reviews/service';
import { unrestrictCustomer } from '../customers/restrictions';
import { sessionActor, merchantSessionOf, proveSessionAuthenticator, AuthenticatorProofBody, CustomerSearchQuery, EnabledEventsBody, PaymentSearchQuery, ReviewQueueQuery, WebhookUrlBody, merchant, route, type MerchantAccounts, type MerchantSession } from '../identity';
import { EventListQuery, PageQuery } from '../readback/schemas';
import { enabledEvents, eventLogPage, getWebhook, listMerchantKeys, merchantEvent } from './developers';
import { customersPage } from './customers';
import { chargesPage, checkoutsPage, merchantCheckout, merchantTimeline } from './payments';
import { merchantHome } from './home';
import { paymentsCsv, paymentsPage } from './payment-list';
import { PaymentFilterQuery, PaymentListQuery } from './payment-schemas';
import { reviewQueuePage } from './reviews';

/** A person acts on their own merchant's records only: the session decides the scope. */
const ownMerchant = (session: MerchantSession) => ({ merchantId: session.merchant.id });

/**
 * The merchant dashboard's data routes under /merchant/v1 (operator spec, section 7): every one
 * behind the session and the role guard, scoped to the session's merchant.
 */
export function merchantDashboardRoutes(deps: AppDeps, accounts: Pick<MerchantAccounts, 'ctx' | 'throttle' | 'requireSession'>): Router {
  const session = accounts.requireSession;
  const router = Router();

  route(router, 'get', '/home', merchant(session, 'read'), async (req, res) => {
    res.json(await merchantHome(deps, merchantSessionOf(req).merchant.id));
  });

  route(router, 'get', '/developers/api_keys', merchant(session, 'read'), async (req, res) => {
    res.json(await listMerchantKeys(deps, merchantSessionOf(req), parseOrThrow(PageQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'post', '/developers/api_keys', merchant(session, 'developers'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.status(201).json(await issueKey(deps, sessionActor(signedIn), signedIn.merchant.id));
  });
  route(router, 'delete', '/developers/api_keys/:keyPrefix', merchant(session, 'developers'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.json(await revokeKey(deps, sessionActor(signedIn), signedIn.merchant.id, String(req.params.keyPrefix)));
  });

  route(router, 'get', '/developers/webhook', merchant(session, 'read'), async (req, res) => {
    res.json(await getWebhook(deps, merchantSessionOf(req)));
  });
  route(router, 'put', '/developers/webhook', merchant(session, 'developers'), async (req, res) => {
    const { webhook_url } = parseOrThrow(WebhookUrlBody, req.body);
    const signedIn = merchantSessionOf(req);
    await changeSettings(deps, sessionActor(signedIn), signedIn.merchant.id, { webhook_url });
    res.json(await getWebhook(deps, signedIn));
  });
  // With an Idempotency-Key a retried roll answers the secret of the first, rolled once (keys of the merchant's dashboard, apart from its API's).
  const rollOnce = idempotent(deps, { scope: (req) => `dashboard:${merchantSessionOf(req).merchant.id}` });
  route(router, 'post', '/developers/webhook/signing_secret/roll', merchant(session, 'developers'), rollOnce, async (req, res) => {
    const body = parseOrThrow(RollSigningSecretBody, req.body ?? {});
    const signedIn = merchantSessionOf(req);
    res.status(201).json(await rollSigningSecret(deps, sessionActor(signedIn), signedIn.merchant.id, body));
  });

  route(router, 'post', '/developers/webhook/signing_secret/reveal', merchant(session, 'developers'), async (req, res) => {
    const proof = parseOrThrow(AuthenticatorProofBody, req.body ?? {});
    const signedIn = merchantSessionOf(req);
    const prove = () => proveSessionAuthenticator(accounts, signedIn, throttledAddress(req.ip), proof);
    res.set('Cache-Control', 'no-store').json(await revealSigningSecret(deps, sessionActor(signedIn), signedIn.merchant.id, prove));
  });

  route(router, 'get', '/developers/enabled_events', merchant(session, 'read'), async (req, res) => {
    res.json(await enabledEvents(deps, merchantSessionOf(req).merchant.id));
  });
  route(router, 'put', '/developers/enabled_events', merchant(session, 'developers'), async (req, res) => {
    const { enabled_events } = parseOrThrow(EnabledEventsBody, req.body);
    const signedIn = merchantSessionOf(req);
    await changeSettings(deps, sessionActor(signedIn), signedIn.merchant.id, { enabled_events });
    res.json(await enabledEvents(deps, signedIn.merchant.id));
  });

  route(router, 'get', '/developers/events', merchant(session, 'read'), async (req, res) => {
    res.json(await eventLogPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(EventListQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'get', '/developers/events/:id', merchant(session, 'read'), async (req, res) => {
    res.json(await merchantEvent(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  route(router, 'post', '/developers/events/:id/resend', merchant(session, 'developers'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.status(202).json(await resendEvent(deps, sessionActor(signedIn), String(req.params.id), ownMerchant(signedIn)));
  });

  route(router, 'get', '/reviews', merchant(session, 'read'), async (req, res) => {
    res.json(await reviewQueuePage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(ReviewQueueQuery, withoutBlankParameters(req.query), 'Query')));
  });
  for (const [path, decision] of [['approve', 'approved'], ['decline', 'declined']] as const) {
    route(router, 'post', `/reviews/:id/${path}`, merchant(session, 'decide_reviews'), async (req, res) => {
      parseEmptyBody(req.body);
      const signedIn = merchantSessionOf(req);
      res.json(await decideReview(deps, sessionActor(signedIn), String(req.params.id), decision, ownMerchant(signedIn)));
    });
  }

  route(router, 'get', '/customers', merchant(session, 'read'), async (req, res) => {
    res.json(await customersPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(CustomerSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'post', '/customers/:id/unrestrict', merchant(session, 'lift_restrictions'), async (req, res) => {
    parseEmptyBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.json(await unrestrictCustomer(deps, sessionActor(signedIn), String(req.params.id), ownMerchant(signedIn)));
  });

  route(router, 'get', '/payments', merchant(session, 'read'), async (req, res) => {
    res.json(await paymentsPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentListQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'get', '/payments.csv', merchant(session, 'read'), (req, res) => {
    const file = paymentsCsv(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentFilterQuery, withoutBlankParameters(req.query), 'Query'));
    res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="payments-${new Date().toISOString().slice(0, 10)}.csv"`, 'Cache-Control': 'no-store' });
    // Once the file has started, a failed read can only cut it short: logged, the answer ended.
    pipeline(file, res, (error) => {
      if (error) deps.logger.error({ err: error }, 'the payments export failed');
    });
  });

  route(router, 'get', '/checkouts', merchant(session, 'read'), async (req, res) => {
    res.json(await checkoutsPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'get', '/checkouts/:id', merchant(session, 'read'), async (req, res) => {
    res.json(await merchantCheckout(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  route(router, 'get', '/checkouts/:id/timeline', merchant(session, 'read'), async (req, res) => {
    res.json(await merchantTimeline(deps, merchantSessionOf(req).merchant.id, String(req.params.id)));
  });
  route(router, 'get', '/charges', merchant(session, 'read'), async (req, res) => {
    res.json(await chargesPage(deps, merchantSessionOf(req).merchant.id, parseOrThrow(PaymentSearchQuery, withoutBlankParameters(req.query), 'Query')));
  });
  route(router, 'post', '/charges/:id/refund', merchant(session, 'refunds'), async (req, res) => {
    assertNoRefundBody(req.body);
    const signedIn = merchantSessionOf(req);
    res.json(await refundCharge(deps, String(req.params.id), { source: 'dashboard', actor: sessionActor(signedIn), scope: ownMerchant(signedIn) }));
  });

  return router;
}
