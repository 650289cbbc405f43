import express, { type Express } from 'express';
import type { AppDeps } from './app-deps';
import { requireAdmin } from './http/auth';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { openApiDocument } from './http/openapi';
import { healthRoutes } from './health';
import { customerRoutes } from './customers/routes';
import { merchantAdminRoutes } from './merchants/routes';

/** The one Express app serving the API, the admin API and the hosted wallet. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(express.json({ limit: '100kb' }));

  app.use(healthRoutes(deps));
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.config.apiBaseUrl));
  });
  app.use('/api/v1/customers', customerRoutes(deps));

  app.use('/admin/v1', requireAdmin(deps.config.adminToken), merchantAdminRoutes(deps));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
