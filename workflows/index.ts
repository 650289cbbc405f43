// Every workflow the worker runs; the worker bundles this file (and only what it imports).
export { workerHealthWorkflow } from './health';
export { checkoutWorkflow } from './checkout';
export { refundWorkflow } from './refund';
export { deliverEventWorkflow } from './delivery';
export { subscriptionWorkflow } from './subscription';
