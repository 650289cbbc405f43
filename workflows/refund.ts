import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { FAILURE_TYPES, type RefundWorkflowInput } from './contract';
import { DATABASE, PROCESSOR } from './retry-policies';

const processor = proxyActivities<Activities>(PROCESSOR);
const db = proxyActivities<Activities>(DATABASE);

/**
 * Refunds one charge in full (workflow id = charge id, so a double submit or a crash cannot
 * refund twice). Business refusals are non-retryable failures the caller maps to the contract's
 * errors; the processor call is retried with the charge id as idempotency key.
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<{ chargeId: string; status: 'refunded' }> {
  // Its request was answered 503 before the worker got here: it fails (a refused refund's id may be used again) having done nothing.
  if (input.acceptBy !== undefined && Date.now() > input.acceptBy) throw ApplicationFailure.nonRetryable('the request that started the refund was answered before it began', FAILURE_TYPES.requestAnswered);
  // A refund whose request answered 503 before the claim is refused there (its fence), having done nothing.
  const refund = await processor.refundAtProcessor({ chargeId: input.chargeId, source: input.source, fenceId: input.fenceId });
  await db.recordRefund({ chargeId: input.chargeId, processorRefundId: refund.processorRefundId, source: input.source, ...(input.requester ? { requester: input.requester } : {}) });
  return { chargeId: input.chargeId, status: 'refunded' };
}
