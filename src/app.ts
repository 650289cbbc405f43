import express, { type Express } from 'express';
import type { AppDeps } from './app-deps';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { jsonBody } from './http/json-body';
import { rejectNulCharacters } from './http/reject-nul';
import { API_PREFIXES, noSniff, noStore } from './http/answer-headers';
import { accessLog } from './http/request-context';
import { createApiMetrics, metricsHandler } from './observability/metrics';
import { httpServerSpans } from './observability/tracing';
import { openApiDocument } from './openapi';
import { healthRoutes } from './health/routes';
import { customerRoutes } from './customers/routes';
import { customerAdminRoutes } from './customers/admin-routes';
import { kycRoutes } from './kyc/routes';
import { devicePingRoutes } from './device-pings/routes';
import { checkoutRoutes } from './checkouts/routes';
import { merchantAdminRoutes } from './merchants/routes';
import { chargeRoutes } from './charges/routes';
import { chargeAdminRoutes } from './charges/admin-routes';
import { eventAdminRoutes } from './events/routes';
import { reviewAdminRoutes } from './reviews/routes';
import { sandboxAdminRoutes } from './sandbox/routes';
import { PROCESSOR_EVENTS_PATH, processorEventRoutes } from './processor-events/routes';
import { subscriptionAdminRoutes } from './subscriptions/admin-routes';
import { walletPageRoutes } from './wallet/page-routes';
import { walletRoutes } from './wallet/routes';
import { readbackRoutes } from './readback/routes';
import { adminDataRoutes } from './admin/routes';
import { dashboardRoutes } from './dashboards/operators/routes';
import { operatorSessionRoutes } from './identity/operator-session-routes';
import { requireAdminOrSession } from './identity/admin-guard';
import { operatorAdminRoutes } from './identity/operator-routes';
import { AdminTokenThrottle } from './http/admin-token-throttle';
import { requireAdmin } from './http/auth';
import { DOCS_PATH, docsRoutes } from './docs/routes';
import { createMerchantAccounts } from './identity';
import { merchantAccountRoutes } from './identity/routes';
import { merchantDashboardRoutes } from './merchant-accounts/dashboard-routes';
import { merchantAccountPageRoutes } from './dashboards/links/routes';
import { merchantDashboardPageRoutes } from './dashboards/merchants/routes';
import { merchantInvitationAdminRoutes } from './identity/invitation-admin-routes';
import { assertEveryRouteDeclared, publicRoute, route } from './identity/route-access';

/** The one Express app serving the API, the admin API and the hosted wallet. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  // With tracing on, a server span per request, active while the request is handled.
  if (deps.tracing?.enabled) app.use(httpServerSpans());
  // Then, so every answer (bad JSON included) carries a request id and gets an access-log line.
  app.use(accessLog(deps.logger));
  const metrics = createApiMetrics(deps.db);
  app.use(metrics.middleware);
  // Before anything can answer (a refused credential, bad JSON, a 404), so every answer has them.
  app.use(noSniff);
  app.use(API_PREFIXES, noStore);
  // Before the JSON parser: a processor's signature covers the raw body.
  app.use(PROCESSOR_EVENTS_PATH, processorEventRoutes(deps));
  app.use(jsonBody({ limit: '100kb' }));
  app.use(rejectNulCharacters);

  app.use(healthRoutes(deps));
  route(app, 'get', '/metrics', publicRoute('Prometheus metrics, for the scraper inside the deployment'), metricsHandler(metrics.registry));
  route(app, 'get', '/api/v1/openapi.json', publicRoute('the public OpenAPI document'), (_req, res) => {
    res.json(openApiDocument(deps.config.apiBaseUrl));
  });
  app.use(DOCS_PATH, docsRoutes());
  app.use('/api/v1/customers', customerRoutes(deps));
  app.use('/api/v1/checkouts', checkoutRoutes(deps));
  app.use('/api/v1/charges', chargeRoutes(deps));
  app.use('/api/v1/kyc', kycRoutes(deps));
  app.use('/api/v1/device_pings', devicePingRoutes(deps));
  // Extensions: merchants read back checkouts, customers, charges, refunds and events.
  app.use('/api/v1', readbackRoutes(deps));

  app.use('/wallet/v1', walletRoutes(deps));
  // The hosted checkout page (GET /checkout/:id) and its assets under /wallet-assets.
  app.use(walletPageRoutes(deps));

  // People sign in as themselves with one account machinery: the merchant's people to the merchant
  // dashboard, the operator's people (operator roles) to the operator dashboard, whose session then
  // also opens the admin API within the role. The admin token stays for automation on the admin API;
  // wrong tokens count against the client's address.
  const accounts = createMerchantAccounts(deps);
  const throttle = new AdminTokenThrottle(deps.db, deps.config.adminTokenThrottle);
  app.use('/dashboard', operatorSessionRoutes(accounts), dashboardRoutes(accounts.ctx));

  // The merchant dashboard's API and the pages its mailed links open (the operator's invitations too).
  app.use('/merchant/v1', merchantAccountRoutes(accounts), merchantDashboardRoutes(deps, accounts));
  app.use(merchantAccountPageRoutes(accounts.ctx));
  app.use('/merchant', merchantDashboardPageRoutes(accounts.ctx));
  app.use(
    '/admin/v1',
    requireAdminOrSession(accounts.ctx, requireAdmin(deps.config.adminToken, throttle)),
    merchantAdminRoutes(deps),
    reviewAdminRoutes(deps),
    chargeAdminRoutes(deps),
    eventAdminRoutes(deps),
    sandboxAdminRoutes(deps),
    customerAdminRoutes(deps),
    subscriptionAdminRoutes(deps),
    adminDataRoutes(deps),
    merchantInvitationAdminRoutes(accounts.ctx),
    operatorAdminRoutes(accounts.ctx),
  );

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  // Fails closed: an app with a route that declares no access does not start.
  assertEveryRouteDeclared(app);
  return app;
}
