import type { Logger } from '../logger';
import { findUndispatched } from '../storage/events';
import { dispatchEvents, type DispatchDeps } from './dispatch';
import { startLostSubscriptionWorkflows } from '../subscriptions/workflows';

/** How long after its commit an event may wait for its writer to dispatch it before the sweeper does. */
const GRACE_MS = 2_000;
const BATCH = 200;

/**
 * The outbox's safety net: a process may crash between committing an event and starting its
 * delivery workflow. The worker sweeps for such events and dispatches them, so none is lost.
 */
export function startOutboxSweeper(deps: DispatchDeps & { logger: Logger }, intervalMs: number): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = async () => {
    try {
      const ids = await findUndispatched(deps.db, GRACE_MS, BATCH);
      if (ids.length) {
        deps.logger.info({ count: ids.length }, 'dispatching events left undispatched');
        await dispatchEvents(deps, ids);
      }
      // The same safety net for subscriptions whose renewal workflow a crash left unstarted.
      await startLostSubscriptionWorkflows(deps);
    } catch (error) {
      deps.logger.warn({ err: error }, 'outbox sweep failed; will retry');
    }
  };
  // A sweep still running when the next is due is not queued behind: the next tick finds its leftovers.
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = tick().finally(() => {
      running = null;
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
