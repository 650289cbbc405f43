import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { eventSubjects, markDispatched, startDeliverySeries, type DeliverySeriesRow, type DeliverySubject, type WithSeries } from '../storage/events';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import { deliveryTaskQueue, type TaskQueues } from '../temporal/task-queues';
import { startWorkflow } from '../temporal/workflows';
import { WORKFLOWS, deliveryMemo, deliveryWorkflowId, priorityOf, type DeliveryWorkflowInput } from '../../workflows/contract';

export interface DispatchDeps {
  db: Db;
  temporal: Client;
  config: TaskQueues & { webhookRetryInitialMs: number };
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
  /** Events whose first attempt was made already, by the process that committed them. */
  firstAttemptMade: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (eventIds.length === 0) return;
  // Each event's merchant, type and checkout, which its delivery workflow is filed under in the Temporal UI.
  const subjects = await eventSubjects(deps.db, eventIds);
  // In parallel, a bounded number at a time: a sweep of a large backlog is not one start per round trip.
  for (let i = 0; i < subjects.length; i += DISPATCH_CONCURRENCY) {
    await Promise.all(subjects.slice(i, i + DISPATCH_CONCURRENCY).map((event) => startDelivery(deps, event, firstAttemptMade.has(event.id) ? 1 : 0)));
  }
  await markDispatched(deps.db, eventIds);
}

const DISPATCH_CONCURRENCY = 32;

/**
 * What a delivery workflow is started with besides its input: on its event type's task queue
 * (deliveryTaskQueue: checkout.expired's on the background one), at retry priority (after
 * interactive work, each merchant in turn), filed under its merchant (search attribute) and described (memo).
 */
function deliveryStart(queues: TaskQueues, event: DeliverySubject, series = 1) {
  return {
    taskQueue: deliveryTaskQueue(queues, event.type),
    typedSearchAttributes: merchantSearchAttributes(event.merchant_id),
    memo: { ...deliveryMemo({ merchantId: event.merchant_id, eventId: event.id, eventType: event.type, checkoutId: event.checkout_id ?? undefined }, series) },
    priority: priorityOf('retry', event.merchant_id),
  };
}

/**
 * Starts the delivery workflow of one event (workflow id = event id). `attemptsMade` attempts
 * were already made without it (the committing process's first one): the workflow makes the rest,
 * its first after the first retry delay.
 */
export async function startDelivery(deps: DispatchDeps, event: DeliverySubject, attemptsMade = 0): Promise<void> {
  const eventId = event.id;
  const retryInitialMs = deps.config.webhookRetryInitialMs;
  const input: DeliveryWorkflowInput = attemptsMade > 0 ? { eventId, retryInitialMs, attemptsMade } : { eventId, retryInitialMs };
  try {
    await startWorkflow(deps.temporal, WORKFLOWS.delivery, {
      workflowId: deliveryWorkflowId(eventId),
      args: [input],
      ...deliveryStart(deps.config, event),
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
export async function dispatchCommitted(deps: DispatchDeps & { logger: Logger }, eventIds: string[]): Promise<void> {
  try {
    await dispatchEvents(deps, eventIds);
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
  const [event] = await eventSubjects(deps.db, [eventId]);
  await startWorkflow(deps.temporal, WORKFLOWS.delivery, {
    workflowId: deliveryWorkflowId(eventId, series),
    args: [input],
    ...deliveryStart(deps.config, event!, series),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  return series;
}
