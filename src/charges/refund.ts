import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { applicationFailureOf } from '../../workflows/failures';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import type { AppDeps } from '../app-deps';
import { ApiError, ValidationError } from '../http/errors';
import { isEmptyBody } from '../http/validate';
import { findChargeById, type ChargeRow } from '../storage/charges';
import { findPaymentMethod } from '../storage/payment-methods';
import { FAILURE_TYPES, type RefundWorkflowInput } from '../../workflows/definitions';
import { loadPresentedCharge } from './load';
import { refundRefusal } from './refund-rules';

export const REFUND_WORKFLOW = 'refundWorkflow';

/**
 * The refund endpoint takes no body: the full amount is always refunded. A body asking for
 * anything (a partial amount, say) is refused rather than silently refunding in full.
 */
export function assertNoRefundBody(body: unknown): void {
  if (!isEmptyBody(body)) throw new ValidationError('Refunds take no body.', 'Refunds are always of the full charge amount; partial refunds are not supported. Send the request with no body.');
}

/** The contract's "wrong charge id or no longer succeeded" answer; its hint names the charge. */
function unableToRefund(chargeId: string, why: string): ApiError {
  return new ApiError('refund', 'Unable to refund charge.', `Charge ${chargeId} ${why}.`);
}

function refusalError(chargeId: string, refusal: { type: string; message: string }): ApiError {
  if (refusal.message === 'Unable to refund charge.') return unableToRefund(chargeId, 'is not in status succeeded');
  return new ApiError('refund', refusal.message);
}

/**
 * Refunds a charge in full, for the public API (scoped to the key's merchant) and the
 * dashboard (any merchant). Guards answer the contract's errors at once; the refund itself
 * runs as a workflow keyed by the charge id, so a double submit cannot refund twice.
 */
export async function refundCharge(deps: AppDeps, chargeId: string, scope: { merchantId?: string }, source: RefundWorkflowInput['source']) {
  try {
    return await refundOnce(deps, chargeId, scope, source);
  } catch (error) {
    // The public answers are the contract's bodies exactly; the admin API's errors are {error, hint}.
    throw source === 'api' ? error : withOperatorHint(error, chargeId);
  }
}

/** The contract's hint-less refund refusals, with the hint the operator spec asks of admin errors. */
function withOperatorHint(error: unknown, chargeId: string): unknown {
  if (!(error instanceof ApiError) || error.hint !== undefined) return error;
  const hints: Record<string, string> = {
    'Only credit charges can be refunded.': `Charge ${chargeId} is a payout (debit); only deposits (credit) can be refunded.`,
    'Refund through this processor is not possible now.': `Charge ${chargeId} cannot be refunded: refunds are possible for card deposits through sandbox_alpha and sandbox_beta only; bank and crypto deposits have no refund path.`,
    'Refund failed': `The processor declined the refund of charge ${chargeId}; responsetext gives its reason.`,
  };
  const hint = hints[error.message];
  return hint === undefined ? error : new ApiError(error.kind, error.message, hint, error.extra);
}

async function refundOnce(deps: AppDeps, chargeId: string, scope: { merchantId?: string }, source: RefundWorkflowInput['source']) {
  const { db, temporal, config } = deps;
  const charge: ChargeRow | undefined = await findChargeById(db, chargeId);
  // Another merchant's charge is the same answer as a missing one.
  if (!charge || (scope.merchantId !== undefined && charge.merchant_id !== scope.merchantId)) throw unableToRefund(chargeId, 'does not exist for this business');
  const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
  const refusal = refundRefusal(charge, pm.payment_type);
  if (refusal) throw refusalError(chargeId, refusal);

  try {
    await temporal.workflow.execute(REFUND_WORKFLOW, {
      taskQueue: config.taskQueue,
      workflowId: charge.id,
      args: [{ chargeId: charge.id, source } satisfies RefundWorkflowInput],
      typedSearchAttributes: merchantSearchAttributes(charge.merchant_id),
      // Only a refund the processor refused may be tried again; a done or running one may not.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
  } catch (error) {
    throw refundFailure(chargeId, error);
  }
  return loadPresentedCharge(db, charge.merchant_id, charge.id);
}

function refundFailure(chargeId: string, error: unknown): unknown {
  if (error instanceof WorkflowExecutionAlreadyStartedError) return unableToRefund(chargeId, 'was already refunded or has a refund in progress');
  if (!(error instanceof WorkflowFailedError)) return error;
  const cause = applicationFailureOf(error);
  if (!cause) return error;
  if (cause.type === FAILURE_TYPES.refundDeclined) {
    return new ApiError('refund', 'Refund failed', undefined, { responsetext: String(cause.details?.[0] ?? cause.message) });
  }
  if (cause.type === FAILURE_TYPES.refundUnsupported || cause.type === FAILURE_TYPES.chargeNotRefundable) {
    return refusalError(chargeId, { type: cause.type, message: cause.message });
  }
  return error;
}
