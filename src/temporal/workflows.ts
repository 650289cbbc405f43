import { WithStartWorkflowOperation, type Client, type WorkflowIdConflictPolicy, type WorkflowSignalWithStartOptions, type WorkflowStartOptions } from '@temporalio/client';
import type { WithWorkflowArgs } from '@temporalio/common';
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

/** The start of a workflow by its typed reference, to send with an update (update-with-start); each send needs a new one. */
export function withStartOf<N extends WorkflowName>(workflow: WorkflowRef<N>, options: WorkflowStartOptions<WorkflowSignatures[N]> & { workflowIdConflictPolicy: WorkflowIdConflictPolicy }) {
  return new WithStartWorkflowOperation<WorkflowSignatures[N]>(workflow.workflowType, options);
}

/** Signals a workflow by its typed reference, starting it first if it is not running (the one signal that also cuts a start delay short). */
export function signalWithStartWorkflow<N extends WorkflowName, A extends unknown[]>(
  client: Client,
  workflow: WorkflowRef<N>,
  options: WithWorkflowArgs<WorkflowSignatures[N], WorkflowSignalWithStartOptions<A>>,
) {
  return client.workflow.signalWithStart<WorkflowSignatures[N], A>(workflow.workflowType, options);
}
