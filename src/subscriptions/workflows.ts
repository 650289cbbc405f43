import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import type { Logger } from '../logger';
import { ServiceUnavailableError } from '../http/errors';
import { isRetryableUpdateFailure } from '../temporal/transient-errors';
import type { Db } from '../storage/db';
import { findSubscriptionByIdUnscoped, findUnstartedSubscriptionsUnscoped, markWorkflowStarted, type SubscriptionRow } from '../storage/subscriptions';
import { CustomerIdAttribute, MerchantIdAttribute, SUBSCRIPTION_FAILURES, WORKFLOWS, priorityOf, subscriptionMemo, subscriptionWorkflowId, type SubscriptionWorkflowInput } from '../../workflows/contract';
import { startWorkflow } from '../temporal/workflows';

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
    await startWorkflow(deps.temporal, WORKFLOWS.subscription, {
      taskQueue: deps.config.taskQueue,
      workflowId: subscriptionWorkflowId(sub.id),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      // Renewals are work nobody waits for (a cancellation, rare, waits its turn with them).
      priority: priorityOf('background', sub.merchant_id),
      typedSearchAttributes: new TypedSearchAttributes([
        { key: MerchantIdAttribute, value: sub.merchant_id },
        { key: CustomerIdAttribute, value: sub.customer_id },
      ]),
      memo: { ...subscriptionMemo({ merchantId: sub.merchant_id, customerId: sub.customer_id, subscriptionId: sub.id }) },
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await markWorkflowStarted(deps.db, [sub.id]);
}

/** After the commit that created subscriptions: start their workflows (the sweeper catches a crash in between). */
export async function startSubscriptionWorkflows(deps: SubscriptionWorkflowDeps, subscriptionIds: readonly string[] = []): Promise<void> {
  for (const id of subscriptionIds) {
    const sub = await findSubscriptionByIdUnscoped(deps.db, id);
    if (sub) await ensureSubscriptionWorkflow(deps, sub);
  }
}

/** How long after its commit a subscription may wait for its creator to start its workflow. */
const GRACE_MS = 2_000;
const BATCH = 100;

/** The sweeper's share: starts every live subscription's workflow whose start a crash lost. */
export async function startLostSubscriptionWorkflows(deps: SubscriptionWorkflowDeps & { logger: Logger }): Promise<void> {
  const lost = await findUnstartedSubscriptionsUnscoped(deps.db, GRACE_MS, BATCH);
  if (lost.length) deps.logger.info({ count: lost.length }, 'starting subscription workflows left unstarted');
  for (const sub of lost) await ensureSubscriptionWorkflow(deps, sub);
}

const UPDATE_ATTEMPTS = 10;
const UPDATE_RETRY_MS = 200;

/** Raised when the subscription ended (cancelled) before its workflow could take the update. */
export class SubscriptionEndedError extends Error {}

/**
 * Sends an update to the subscription's current run. A run that continues as new (after every
 * renewal step) refuses or abandons updates it has not completed, so while the database says the
 * subscription is live the update is sent again, to the next run; once it says cancelled, the
 * update is pointless and SubscriptionEndedError is raised. An offset the workflow refuses
 * as invalid is raised as it is.
 */
export async function updateSubscriptionWorkflow<T>(
  deps: SubscriptionWorkflowDeps,
  subscriptionId: string,
  send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(deps.temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId)));
    } catch (error) {
      const refusal = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause.type : undefined;
      if (refusal === SUBSCRIPTION_FAILURES.invalidClock) throw error;
      const current = await findSubscriptionByIdUnscoped(deps.db, subscriptionId);
      if (!current || current.status === 'cancelled' || refusal === SUBSCRIPTION_FAILURES.cancelled) throw new SubscriptionEndedError(subscriptionId);
      const transient = isRetryableUpdateFailure(error);
      if (transient && attempt >= UPDATE_ATTEMPTS) {
        throw new ServiceUnavailableError('The subscription service is briefly unavailable.', 'Nothing was changed by the workflow: send the same request again after Retry-After seconds.', 1);
      }
      if (attempt >= UPDATE_ATTEMPTS || !(transient || error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError || isRunClosing(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, UPDATE_RETRY_MS));
    }
  }
}

function isRunClosing(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /already completed|continued as new|closing/i.test(message);
}
