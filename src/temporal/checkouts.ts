import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { checkoutSearchAttributes, type CheckoutWorkflowInput } from '../../workflows/definitions';

export const CHECKOUT_WORKFLOW = 'checkoutWorkflow';

/**
 * Starts the checkout's workflow (workflow id = checkout id). A second start with the same id
 * is refused rather than starting the same checkout twice.
 */
export async function startCheckoutWorkflow(temporal: Client, taskQueue: string, input: CheckoutWorkflowInput): Promise<void> {
  await temporal.workflow.start(CHECKOUT_WORKFLOW, {
    taskQueue,
    workflowId: input.checkoutId,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    typedSearchAttributes: new TypedSearchAttributes(checkoutSearchAttributes(input)),
  });
}

/** Best-effort cleanup when the checkout could not be recorded after its workflow started. */
export async function abandonCheckoutWorkflow(temporal: Client, checkoutId: string): Promise<void> {
  await temporal.workflow.getHandle(checkoutId).terminate('checkout was not recorded').catch(() => undefined);
}
