import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { checkoutStatusQuery, checkoutWorkflowId, subscriptionWorkflowId } from '../../workflows/contract';
import type { ChargeRow } from '../storage/charges';

/**
 * Whether a workflow may still be working on the charge, so the reconciler must leave it alone.
 * A renewal belongs to its subscription's workflow, any other charge to its checkout's. A workflow
 * that is gone or closed owns nothing. A checkout's workflow owns the charge while a task of its is
 * pending (it may carry the attempt's update back) or while it says an attempt is in flight; one
 * that never ran a task (a delayed start whose first attempt's update was lost) has none. A query
 * that fails throws: the caller leaves the charge for a later sweep.
 */
export async function workflowMayOwnCharge(temporal: Client, charge: Pick<ChargeRow, 'checkout_id' | 'subscription_id' | 'subscription_period'>): Promise<boolean> {
  const renewal = (charge.subscription_period ?? 0) > 0 && charge.subscription_id !== null;
  const handle = temporal.workflow.getHandle(renewal ? subscriptionWorkflowId(charge.subscription_id!) : checkoutWorkflowId(charge.checkout_id));
  let description;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
  if (description.status.name !== 'RUNNING') return false;
  // A renewal's workflow retries its charge's activities until they settle it.
  if (renewal) return true;
  if (description.raw.pendingWorkflowTask) return true;
  if (description.historyLength <= 1) return false;
  return (await handle.query(checkoutStatusQuery)).attemptInFlight;
}
