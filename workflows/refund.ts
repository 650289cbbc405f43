import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RefundWorkflowInput } from './contract';
import { DATABASE, PROCESSOR } from './retry-policies';

const processor = proxyActivities<Activities>(PROCESSOR);
const db = proxyActivities<Activities>(DATABASE);

/**
 * Refunds one charge in full (workflow id = charge id, so a double submit or a crash cannot
 * refund twice). Business refusals are non-retryable failures the caller maps to the contract's
 * errors; the processor call is retried with the charge id as idempotency key.
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<{ chargeId: string; status: 'refunded' }> {
  const refund = await processor.refundAtProcessor({ chargeId: input.chargeId, source: input.source });
  await db.recordRefund({ chargeId: input.chargeId, processorRefundId: refund.processorRefundId, source: input.source, ...(input.requester ? { requester: input.requester } : {}) });
  return { chargeId: input.chargeId, status: 'refunded' };
}
