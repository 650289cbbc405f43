import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { WORKFLOWS, checkoutSearchAttributes, checkoutWorkflowId, type CheckoutWorkflowInput } from '../../workflows/contract';
import { startWorkflow } from './workflows';

/**
 * Starts the checkout's workflow (workflow id = checkout id). A second start with the same id
 * is refused rather than starting the same checkout twice.
 *
 * With `delayed` (the default, CHECKOUT_WORKFLOW_DELAYED_START), the start carries a start delay
 * that ends at the checkout's deadline: Temporal stores the workflow and a durable timer of its
 * own, and dispatches the first workflow task when the first attempt's update arrives (an update
 * ends the delay) or when the deadline comes, whichever is first. A checkout nobody pays thus
 * costs one start and one task at its deadline, not a task at creation, a timer and a cached
 * workflow while it waits. The workflow's code is the same either way: woken at its deadline, it
 * finds no time left and expires the checkout. Signals do not end the delay, and nothing signals
 * a checkout before it has a charge; queries are refused until its first task.
 */
export async function startCheckoutWorkflow(temporal: Client, taskQueue: string, input: CheckoutWorkflowInput, delayed = true): Promise<void> {
  const untilDeadline = Date.parse(input.expiresAt) - Date.now();
  await startWorkflow(temporal, WORKFLOWS.checkout, {
    taskQueue,
    workflowId: checkoutWorkflowId(input.checkoutId),
    args: [input],
    ...(delayed && untilDeadline > 0 ? { startDelay: untilDeadline } : {}),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    typedSearchAttributes: new TypedSearchAttributes(checkoutSearchAttributes(input)),
  });
}

/** Best-effort cleanup when the checkout could not be recorded after its workflow started. */
export async function abandonCheckoutWorkflow(temporal: Client, checkoutId: string): Promise<void> {
  await temporal.workflow.getHandle(checkoutWorkflowId(checkoutId)).terminate('checkout was not recorded').catch(() => undefined);
}
