// Every workflow the worker runs; the worker bundles this file (and only what it imports).
import type { WorkflowSignatures } from './contract';
import { workerHealthWorkflow } from './health';
import { checkoutWorkflow } from './checkout';
import { checkoutExpiryWorkflow } from './checkout-expiry';
import { refundWorkflow } from './refund';
import { deliverEventWorkflow } from './delivery';
import { subscriptionWorkflow } from './subscription';

export { workerHealthWorkflow, checkoutWorkflow, checkoutExpiryWorkflow, refundWorkflow, deliverEventWorkflow, subscriptionWorkflow };

/** Compile-time only: the workflows exported here are the contract's, with its signatures. */
type Implements<T extends WorkflowSignatures> = T;
export type RegisteredWorkflows = Implements<{
  workerHealthWorkflow: typeof workerHealthWorkflow;
  checkoutWorkflow: typeof checkoutWorkflow;
  checkoutExpiryWorkflow: typeof checkoutExpiryWorkflow;
  refundWorkflow: typeof refundWorkflow;
  deliverEventWorkflow: typeof deliverEventWorkflow;
  subscriptionWorkflow: typeof subscriptionWorkflow;
}>;
