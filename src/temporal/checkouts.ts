import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  WORKFLOWS,
  checkoutEndedSignal,
  checkoutExpiryMemo,
  checkoutExpiryWorkflowId,
  checkoutMemo,
  checkoutSearchAttributes,
  checkoutWorkflowId,
  priorityOf,
  type CheckoutState,
  type CheckoutWorkflowInput,
} from '../../workflows/contract';
import type { CheckoutRow } from '../storage/checkouts';
import { signalWithStartWorkflow, startWorkflow, withStartOf } from './workflows';
import { reachUntil, withinReach } from './deadlines';
import type { TaskQueues } from './task-queues';

/**
 * Starts what keeps the checkout's deadline, before its row is written (a row nothing would ever
 * expire cannot exist). A second start for the same checkout is refused rather than run twice.
 *
 * With `delayed` (the default, CHECKOUT_WORKFLOW_DELAYED_START) that is the checkout's expiry
 * workflow (`<checkout id>:expiry`), on the background task queue at background priority, with a
 * start delay that ends at the deadline: Temporal stores it and a durable timer, and a background
 * worker sees it once, at the deadline.
 * The checkout's own workflow starts with its first attempt (checkoutWorkflowStart), at
 * interactive priority, so a customer's attempt never queues behind thousands of expiries.
 * Without, the checkout's own workflow starts now and keeps its deadline itself.
 */
export function startCheckoutWorkflow(temporal: Client, queues: TaskQueues, input: CheckoutWorkflowInput, delayed = true): Promise<void> {
  // Within the reach of Temporal, or 503 (the checkout is not recorded without its deadline's workflow).
  return withinReach(temporal, reachUntil(), () => startDeadlineWorkflow(temporal, queues, input, delayed));
}

async function startDeadlineWorkflow(temporal: Client, queues: TaskQueues, input: CheckoutWorkflowInput, delayed: boolean): Promise<void> {
  const typedSearchAttributes = new TypedSearchAttributes(checkoutSearchAttributes(input));
  const once = { workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE, workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL } as const;
  if (!delayed) {
    await startWorkflow(temporal, WORKFLOWS.checkout, {
      taskQueue: queues.taskQueue,
      workflowId: deadlineWorkflowId(input.checkoutId, false),
      args: [input],
      priority: priorityOf('interactive', input.merchantId),
      typedSearchAttributes,
      memo: { ...checkoutMemo(input) },
      ...once,
    });
    return;
  }
  const untilDeadline = Date.parse(input.expiresAt) - Date.now();
  await startWorkflow(temporal, WORKFLOWS.checkoutExpiry, {
    taskQueue: queues.backgroundTaskQueue,
    workflowId: deadlineWorkflowId(input.checkoutId),
    args: [{ checkoutId: input.checkoutId, expiresAt: input.expiresAt }],
    ...(untilDeadline > 0 ? { startDelay: untilDeadline } : {}),
    priority: priorityOf('background', input.merchantId),
    typedSearchAttributes,
    memo: { ...checkoutExpiryMemo(input) },
    ...once,
  });
}

/**
 * Ends the checkout's expiry workflow once the checkout's own workflow has ended the checkout:
 * signal-with-start, because a plain signal waits out the start delay. One that has ended already
 * is left alone (REJECT_DUPLICATE); one Temporal no longer keeps is started and ends at once, on
 * the background task queue (`backgroundTaskQueue`) where its start put it.
 */
export async function endCheckoutExpiryWorkflow(temporal: Client, backgroundTaskQueue: string, input: CheckoutWorkflowInput, state: CheckoutState): Promise<void> {
  try {
    await signalWithStartWorkflow(temporal, WORKFLOWS.checkoutExpiry, {
      taskQueue: backgroundTaskQueue,
      workflowId: checkoutExpiryWorkflowId(input.checkoutId),
      args: [{ checkoutId: input.checkoutId, expiresAt: input.expiresAt }],
      signal: checkoutEndedSignal,
      signalArgs: [state],
      priority: priorityOf('background', input.merchantId),
      typedSearchAttributes: new TypedSearchAttributes(checkoutSearchAttributes(input)),
      memo: { ...checkoutExpiryMemo(input) },
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The id of the workflow startCheckoutWorkflow starts: the expiry workflow's when `delayed`, else the checkout's own. */
export function deadlineWorkflowId(checkoutId: string, delayed = true): string {
  return delayed ? checkoutExpiryWorkflowId(checkoutId) : checkoutWorkflowId(checkoutId);
}

/** The checkout workflow's input, from the checkout as recorded. */
export function checkoutWorkflowInput(checkout: CheckoutRow): CheckoutWorkflowInput {
  return {
    checkoutId: checkout.id,
    merchantId: checkout.merchant_id,
    customerId: checkout.customer_id,
    type: checkout.type,
    expiresAt: checkout.expires_at.toISOString(),
    ...(checkout.max_attempts !== null ? { maxAttempts: checkout.max_attempts } : {}),
  };
}

/**
 * The start of the checkout's own workflow, sent with its attempt (update-with-start): the first
 * attempt starts it, every later one finds it running (USE_EXISTING). Once it has ended, no
 * attempt starts it again (REJECT_DUPLICATE): the attempt is refused as made on a closed checkout.
 */
export function checkoutWorkflowStart(taskQueue: string, checkout: CheckoutRow) {
  const input = checkoutWorkflowInput(checkout);
  return withStartOf(WORKFLOWS.checkout, {
    taskQueue,
    workflowId: checkoutWorkflowId(checkout.id),
    args: [input],
    priority: priorityOf('interactive', checkout.merchant_id),
    typedSearchAttributes: new TypedSearchAttributes(checkoutSearchAttributes(input)),
    memo: { ...checkoutMemo(input) },
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
}

/** Best-effort cleanup when the checkout could not be recorded after its deadline's workflow started. */
export async function abandonCheckoutWorkflow(temporal: Client, checkoutId: string): Promise<void> {
  const ids = [checkoutExpiryWorkflowId(checkoutId), checkoutWorkflowId(checkoutId)];
  await withinReach(temporal, reachUntil(), () => Promise.all(ids.map((id) => temporal.workflow.getHandle(id).terminate('checkout was not recorded').catch(() => undefined))));
}

/** A checkout's workflow as Temporal keeps it: its own, or its expiry workflow; `status` in lower case (running, completed, ...). */
export interface CheckoutWorkflowFound {
  id: string;
  kind: 'checkout' | 'expiry';
  status: string;
}

/**
 * The workflow that stands for a checkout in Temporal: its own once an attempt has started it, else
 * the expiry workflow started with it (a checkout nobody tried); null when Temporal keeps neither
 * (never started, or removed after the namespace's retention).
 */
export async function findCheckoutWorkflow(temporal: Client, checkoutId: string): Promise<CheckoutWorkflowFound | null> {
  const describe = async (id: string, kind: CheckoutWorkflowFound['kind']): Promise<CheckoutWorkflowFound | null> => {
    try {
      const { status } = await temporal.workflow.getHandle(id).describe();
      return { id, kind, status: status.name.toLowerCase() };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    }
  };
  const [own, expiry] = await Promise.all([describe(checkoutWorkflowId(checkoutId), 'checkout'), describe(checkoutExpiryWorkflowId(checkoutId), 'expiry')]);
  return own ?? expiry;
}
