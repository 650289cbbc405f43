import type { Logger } from '../logger';
import { dispatchEvents, type DispatchDeps } from './dispatch';
import { startLostSubscriptionWorkflows } from '../subscriptions/workflows';
import { WEBHOOK_TIMEOUT_MS } from '../webhooks/send';
import { claimUndispatched, eventsWithAcceptedAttempt, eventsWithAttempts, markDelivered, markDispatched, releaseDeliveryLease } from '../storage/events';
import { everyWithoutOverlap } from '../periodic';

/**
 * How long after its commit an event is left to its writer, which first tries to deliver it itself
 * (src/events/first-delivery.ts), before the sweeper looks at it. The two never send together
 * whatever the timing: each claims the event's delivery lease before it sends or dispatches.
 */
const GRACE_MS = WEBHOOK_TIMEOUT_MS + 10_000;
/** How long a sweep holds the events it took while it starts their workflows. */
const SWEEP_LEASE_MS = 60_000;
const BATCH = 200;

/**
 * The outbox's safety net: a process may crash between committing an event and starting its
 * delivery workflow. The worker sweeps for such events and dispatches them, so none is lost.
 */
export function startOutboxSweeper(deps: DispatchDeps & { logger: Logger }, intervalMs: number): () => Promise<void> {
  return everyWithoutOverlap(intervalMs, async () => {
    try {
      await sweepOutbox(deps);
    } catch (error) {
      deps.logger.warn({ err: error }, 'outbox sweep failed; will retry');
    }
  });
}

/** One sweep: dispatches every event left undispatched past the grace period (a batch), then lost subscription workflows. */
export async function sweepOutbox(deps: DispatchDeps & { logger: Logger }): Promise<void> {
  const found = await claimUndispatched(deps.db, GRACE_MS, SWEEP_LEASE_MS, BATCH);
  // An event whose delivery already ended (its outcome recorded, the dispatch mark lost) needs no workflow.
  const ended = found.filter((e) => e.delivery_status !== 'pending').map((e) => e.id);
  let pending = found.filter((e) => e.delivery_status === 'pending');
  await markDispatched(deps.db, ended);
  // One whose first attempt the merchant accepted, the process dying before it wrote so: delivered.
  const accepted = await eventsWithAcceptedAttempt(deps.db, pending.map((e) => e.id));
  await markDelivered(deps.db, [...accepted]);
  pending = pending.filter((e) => !accepted.has(e.id));
  if (pending.length) {
    deps.logger.info({ count: pending.length }, 'dispatching events left undispatched');
    const ids = pending.map((e) => e.id);
    // The committing process may have made an event's first attempt before it stopped (or
    // before Temporal refused its retry workflow): the workflow then makes the other four, so
    // an event never gets more than five. That first attempt is the only one ever made outside
    // the event's delivery workflow (a resend runs under a workflow and an attempt budget of its own).
    try {
      await dispatchEvents(deps, ids, await eventsWithAttempts(deps.db, ids));
    } catch (error) {
      await releaseDeliveryLease(deps.db, ids).catch(() => undefined); // the next sweep tries again
      throw error;
    }
  }
  // The same safety net for subscriptions whose renewal workflow a crash left unstarted.
  await startLostSubscriptionWorkflows(deps);
}
