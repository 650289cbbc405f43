import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { WorkflowName, WorkflowRef, WorkflowSignatures } from '../../workflows/contract';

/**
 * Starts a workflow by its typed reference (`WORKFLOWS.checkout`, ...): its arguments and result are
 * checked against the contract's signature, and no workflow code is loaded into the client's process.
 */
export function startWorkflow<N extends WorkflowName>(client: Client, workflow: WorkflowRef<N>, options: WorkflowStartOptions<WorkflowSignatures[N]>) {
  return client.workflow.start<WorkflowSignatures[N]>(workflow.workflowType, options);
}

/** Starts a workflow by its typed reference and waits for its result. */
export function executeWorkflow<N extends WorkflowName>(client: Client, workflow: WorkflowRef<N>, options: WorkflowStartOptions<WorkflowSignatures[N]>) {
  return client.workflow.execute<WorkflowSignatures[N]>(workflow.workflowType, options);
}
