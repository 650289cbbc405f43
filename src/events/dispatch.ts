import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { eventMerchantIds, markDispatched, startDeliverySeries, type DeliverySeriesRow, type WithSeries } from '../storage/events';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import { startWorkflow } from '../temporal/workflows';
import { PRIORITY_LEVELS, WORKFLOWS, deliveryWorkflowId, priorityOf, type DeliveryWorkflowInput } from '../../workflows/contract';

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
export async function dispatchEvents(
  deps: DispatchDeps,
  eventIds: string[],
  merchantIds?: string | ReadonlyMap<string, string>,
  /** Events whose first attempt was made already, by the process that committed them. */
  firstAttemptMade: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (eventIds.length === 0) return;
  // Each event's merchant, so its delivery can be filtered by merchant in the Temporal UI: from the
  // caller, who has it (one merchant for all, or one per event), else looked up.
  const merchants = typeof merchantIds === 'string' ? new Map(eventIds.map((id) => [id, merchantIds])) : (merchantIds ?? (await eventMerchantIds(deps.db, eventIds)));
  // In parallel, a bounded number at a time: a sweep of a large backlog is not one start per round trip.
  for (let i = 0; i < eventIds.length; i += DISPATCH_CONCURRENCY) {
    await Promise.all(eventIds.slice(i, i + DISPATCH_CONCURRENCY).map((eventId) => startDelivery(deps, eventId, merchants.get(eventId), firstAttemptMade.has(eventId) ? 1 : 0)));
  }
  await markDispatched(deps.db, eventIds);
}

const DISPATCH_CONCURRENCY = 32;

/** Deliveries by workflow (retries, resends, replays) go after interactive work, each merchant in turn. */
function retryPriority(merchantId: string | undefined) {
  return merchantId !== undefined ? priorityOf('retry', merchantId) : { priorityKey: PRIORITY_LEVELS.retry };
}

/**
 * Starts the delivery workflow of one event (workflow id = event id). `attemptsMade` attempts
 * were already made without it (the committing process's first one): the workflow makes the rest,
 * its first after the first retry delay.
 */
export async function startDelivery(deps: DispatchDeps, eventId: string, merchantId: string | undefined, attemptsMade = 0): Promise<void> {
  const retryInitialMs = deps.config.webhookRetryInitialMs;
  const input: DeliveryWorkflowInput = attemptsMade > 0 ? { eventId, retryInitialMs, attemptsMade } : { eventId, retryInitialMs };
  try {
    await startWorkflow(deps.temporal, WORKFLOWS.delivery, {
      taskQueue: deps.config.taskQueue,
      workflowId: deliveryWorkflowId(eventId),
      args: [input],
      typedSearchAttributes: merchantSearchAttributes(merchantId),
      priority: retryPriority(merchantId),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      ...(attemptsMade > 0 ? { startDelay: retryInitialMs } : {}),
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
export async function dispatchCommitted(deps: DispatchDeps & { logger: Logger }, eventIds: string[], merchantId: string): Promise<void> {
  try {
    await dispatchEvents(deps, eventIds, merchantId);
  } catch (error) {
    deps.logger.warn({ err: error, event_ids: eventIds }, 'event dispatch failed; the outbox sweeper will retry');
  }
}

/**
 * A resend or a replay: a new delivery series of the same recorded bytes (same event_id), with
 * its own workflow (`<event id>:<series>`) and its own five attempts, numbered on after the
 * event's earlier ones. It adds to the event's history and takes nothing back: an event once
 * delivered stays delivered. Answers the series' number. `withSeries` commits with the series
 * row, before the delivery starts.
 */
export async function redeliverEvent(deps: DispatchDeps, eventId: string, reason: DeliverySeriesRow['reason'], withSeries?: WithSeries): Promise<number> {
  const series = await startDeliverySeries(deps.db, eventId, reason, withSeries);
  const input: DeliveryWorkflowInput = { eventId, retryInitialMs: deps.config.webhookRetryInitialMs, series };
  const merchants = await eventMerchantIds(deps.db, [eventId]);
  await startWorkflow(deps.temporal, WORKFLOWS.delivery, {
    taskQueue: deps.config.taskQueue,
    workflowId: deliveryWorkflowId(eventId, series),
    args: [input],
    typedSearchAttributes: merchantSearchAttributes(merchants.get(eventId)),
    priority: retryPriority(merchants.get(eventId)),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  return series;
}
