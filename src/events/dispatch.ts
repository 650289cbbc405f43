import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { eventMerchantIds, markDispatched } from '../storage/events';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import type { DeliveryWorkflowInput } from '../../workflows/definitions';

export const DELIVERY_WORKFLOW = 'deliverEventWorkflow';

export interface DispatchDeps {
  db: Db;
  temporal: Client;
  config: { taskQueue: string; webhookRetryInitialMs: number };
}

/**
 * Starts the delivery workflow of each committed event (workflow id = event id, so an event is
 * delivered by one workflow whatever crashes and re-dispatches happen), then marks it dispatched.
 * Called after the commit that recorded the events; the outbox sweeper calls it again for any
 * event a crash left undispatched.
 */
export async function dispatchEvents(deps: DispatchDeps, eventIds: string[], merchantId?: string): Promise<void> {
  if (eventIds.length === 0) return;
  // Each event's merchant, so its delivery can be filtered by merchant in the Temporal UI
  // (read back unless the caller, who recorded the events for one merchant, says which).
  const merchants = merchantId ? new Map(eventIds.map((id) => [id, merchantId])) : await eventMerchantIds(deps.db, eventIds);
  // In parallel, a bounded number at a time: a sweep of a large backlog is not one start per round trip.
  for (let i = 0; i < eventIds.length; i += DISPATCH_CONCURRENCY) {
    await Promise.all(eventIds.slice(i, i + DISPATCH_CONCURRENCY).map((eventId) => startDelivery(deps, eventId, merchants.get(eventId))));
  }
  await markDispatched(deps.db, eventIds);
}

const DISPATCH_CONCURRENCY = 32;

async function startDelivery(deps: DispatchDeps, eventId: string, merchantId: string | undefined): Promise<void> {
  const input: DeliveryWorkflowInput = { eventId, retryInitialMs: deps.config.webhookRetryInitialMs };
  try {
    await deps.temporal.workflow.start(DELIVERY_WORKFLOW, {
      taskQueue: deps.config.taskQueue,
      workflowId: eventId,
      args: [input],
      typedSearchAttributes: merchantSearchAttributes(merchantId),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Dispatch for callers that answer a person after the commit (API and admin handlers): the
 * change is committed whatever happens here, so a failed dispatch is logged rather than turned
 * into a 500, and the outbox sweeper starts the delivery later.
 */
export async function dispatchCommitted(deps: DispatchDeps & { logger: Logger }, eventIds: string[]): Promise<void> {
  try {
    await dispatchEvents(deps, eventIds);
  } catch (error) {
    deps.logger.warn({ err: error, event_ids: eventIds }, 'event dispatch failed; the outbox sweeper will retry');
  }
}

/** A resend delivers the same recorded bytes under a new workflow id (the event_id stays the same). */
export async function redeliverEvent(deps: DispatchDeps, eventId: string, resendId: string): Promise<void> {
  const input: DeliveryWorkflowInput = { eventId, retryInitialMs: deps.config.webhookRetryInitialMs };
  const merchants = await eventMerchantIds(deps.db, [eventId]);
  await deps.temporal.workflow.start(DELIVERY_WORKFLOW, {
    taskQueue: deps.config.taskQueue,
    workflowId: `${eventId}-resend-${resendId}`,
    args: [input],
    typedSearchAttributes: merchantSearchAttributes(merchants.get(eventId)),
  });
}
