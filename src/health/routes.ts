import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { checkReadiness } from './service';
import { publicRoute, route } from '../identity';

/**
 * Liveness and readiness, without authentication so orchestrators can probe them. Ready means
 * the database answers, Temporal answers, and a worker is running (its heartbeat is recent) and
 * polling the task queue: without a worker no checkout would make progress, whatever the API answers.
 */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'get', '/healthz', publicRoute('the process liveness check'), (_req, res) => {
    res.json({ status: 'ok' });
  });
  route(router, 'get', '/readyz', publicRoute('the readiness check'), async (_req, res) => {
    const { database, temporalServer, pollers, workers } = await checkReadiness(deps);
    const worker = pollers > 0 && workers > 0;
    const ready = database && temporalServer && worker;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      checks: {
        database: database ? 'ok' : 'unreachable',
        temporal: temporalServer ? 'ok' : 'unreachable',
        worker: worker ? 'ok' : 'no_pollers',
      },
    });
  });
  return router;
}
