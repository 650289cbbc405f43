import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { checkReadiness, type QueueWorkers } from './service';
import { publicRoute, route } from '../identity';

/**
 * Liveness and readiness, without authentication so orchestrators can probe them. Ready means
 * the database answers, Temporal answers, and a worker is running (its heartbeat is recent) and
 * polling the task queue: without a worker no attempt would make progress, whatever the API answers.
 * The background task queue's workers are reported (`background_worker`) but do not decide
 * readiness: without them expiries wait, yet every request the API answers still works, and a
 * load balancer that took the APIs out of rotation for it would stop the payments too.
 */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  route(router, 'get', '/healthz', publicRoute('the process liveness check'), (_req, res) => {
    res.json({ status: 'ok' });
  });
  route(router, 'get', '/readyz', publicRoute('the readiness check'), async (_req, res) => {
    const { database, temporalServer, interactive, background } = await checkReadiness(deps);
    // Heartbeats live in the database: while it cannot be read, workers are judged by Temporal's pollers alone.
    const serving = ({ pollers, workers }: QueueWorkers) => pollers > 0 && (workers > 0 || !database);
    const worker = serving(interactive);
    const ready = database && temporalServer && worker;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      checks: {
        database: database ? 'ok' : 'unreachable',
        temporal: temporalServer ? 'ok' : 'unreachable',
        worker: worker ? 'ok' : 'no_pollers',
        background_worker: serving(background) ? 'ok' : 'no_pollers',
      },
    });
  });
  return router;
}
