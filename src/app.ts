import express, { type Express } from 'express';
import type { AppDeps } from './app-deps';
import { requireAdmin } from './http/auth';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { rejectNulCharacters } from './http/reject-nul';
import { accessLog } from './http/request-context';
import { createApiMetrics, metricsHandler } from './observability/metrics';
import { openApiDocument } from './http/openapi';
import { healthRoutes } from './health';
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
import { walletPageRoutes } from './wallet/page';
import { walletRoutes } from './wallet/routes';

/** The one Express app serving the API, the admin API and the hosted wallet. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // First, so every answer (bad JSON included) carries a request id and gets an access-log line.
  app.use(accessLog(deps.logger));
  const metrics = createApiMetrics(deps.db);
  app.use(metrics.middleware);
  app.use(express.json({ limit: '100kb' }));
  app.use(rejectNulCharacters);

  app.use(healthRoutes(deps));
  app.get('/metrics', metricsHandler(metrics.registry));
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.config.apiBaseUrl));
  });
  app.use('/api/v1/customers', customerRoutes(deps));
  app.use('/api/v1/checkouts', checkoutRoutes(deps));
  app.use('/api/v1/charges', chargeRoutes(deps));
  app.use('/api/v1/kyc', kycRoutes(deps));
  app.use('/api/v1/device_pings', devicePingRoutes(deps));

  app.use('/wallet/v1', walletRoutes(deps));
  // The hosted checkout page (GET /checkout/:id) and its assets under /wallet-assets.
  app.use(walletPageRoutes());

  app.use(
    '/admin/v1',
    requireAdmin(deps.config.adminToken),
    merchantAdminRoutes(deps),
    reviewAdminRoutes(deps),
    chargeAdminRoutes(deps),
    eventAdminRoutes(deps),
    sandboxAdminRoutes(deps),
    customerAdminRoutes(deps),
  );

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
