import { Router } from 'express';
import type { AppDeps } from './app-deps';

/** Liveness and readiness, without authentication so orchestrators can probe them. */
export function healthRoutes({ db, temporal }: AppDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [database, temporalServer] = await Promise.all([
      db.raw('SELECT 1').then(() => true, () => false),
      // Bounded: a hung server must not hang the probe.
      temporal.withDeadline(Date.now() + 2000, () => temporal.workflowService.getSystemInfo({})).then(() => true, () => false),
    ]);
    res.status(database && temporalServer ? 200 : 503).json({
      status: database && temporalServer ? 'ready' : 'not_ready',
      checks: { database: database ? 'ok' : 'unreachable', temporal: temporalServer ? 'ok' : 'unreachable' },
    });
  });
  return router;
}
