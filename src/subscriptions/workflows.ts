import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Logger } from '../logger';
import type { Db } from '../storage/db';
import { findSubscriptionById, findUnstartedSubscriptions, markWorkflowStarted, type SubscriptionRow } from '../storage/subscriptions';
import { CustomerIdAttribute, MerchantIdAttribute } from '../../workflows/definitions';
import type { SubscriptionWorkflowInput } from '../../workflows/subscription-definitions';
import type { subscriptionWorkflow } from '../../workflows/subscription';

export interface SubscriptionWorkflowDeps {
  db: Db;
  temporal: Client;
  config: { taskQueue: string };
}

/**
 * Starts the renewal workflow of a subscription (workflow id = subscription id) unless it already
 * exists: running, or ended (a cancelled subscription's workflow is never started again).
 */
export async function ensureSubscriptionWorkflow(deps: SubscriptionWorkflowDeps, sub: Pick<SubscriptionRow, 'id' | 'merchant_id' | 'customer_id' | 'clock_offset_ms'>): Promise<void> {
  const input: SubscriptionWorkflowInput = { subscriptionId: sub.id, clockOffsetMs: sub.clock_offset_ms };
  try {
    await deps.temporal.workflow.start<typeof subscriptionWorkflow>('subscriptionWorkflow', {
      taskQueue: deps.config.taskQueue,
      workflowId: sub.id,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: MerchantIdAttribute, value: sub.merchant_id },
        { key: CustomerIdAttribute, value: sub.customer_id },
      ]),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await markWorkflowStarted(deps.db, [sub.id]);
}

/** After the commit that created subscriptions: start their workflows (the sweeper catches a crash in between). */
export async function startSubscriptionWorkflows(deps: SubscriptionWorkflowDeps, subscriptionIds: readonly string[] = []): Promise<void> {
  for (const id of subscriptionIds) {
    const sub = await findSubscriptionById(deps.db, id);
    if (sub) await ensureSubscriptionWorkflow(deps, sub);
  }
}

/** How long after its commit a subscription may wait for its creator to start its workflow. */
const GRACE_MS = 2_000;
const BATCH = 100;

/** The sweeper's share: starts every live subscription's workflow whose start a crash lost. */
export async function startLostSubscriptionWorkflows(deps: SubscriptionWorkflowDeps & { logger: Logger }): Promise<void> {
  const lost = await findUnstartedSubscriptions(deps.db, GRACE_MS, BATCH);
  if (lost.length) deps.logger.info({ count: lost.length }, 'starting subscription workflows left unstarted');
  for (const sub of lost) await ensureSubscriptionWorkflow(deps, sub);
}

const UPDATE_ATTEMPTS = 10;
const UPDATE_RETRY_MS = 200;

/**
 * Sends an update to the subscription's current run. A run that is just continuing as new
 * refuses updates it has not accepted yet, so those are sent again to the next run.
 */
export async function updateSubscriptionWorkflow<T>(temporal: Client, subscriptionId: string, send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(temporal.workflow.getHandle(subscriptionId));
    } catch (error) {
      if (attempt >= UPDATE_ATTEMPTS || !isRunBetweenRuns(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, UPDATE_RETRY_MS));
    }
  }
}

function isRunBetweenRuns(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  // An update the closing run had not accepted is rejected with "workflow execution already completed".
  const message = error instanceof Error ? error.message : '';
  return !(error instanceof WorkflowUpdateFailedError) && /already completed|continued as new/i.test(message);
}
