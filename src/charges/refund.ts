import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import type { AppDeps } from '../app-deps';
import { AdminNotFoundError, ApiError, ServiceUnavailableError, ValidationError } from '../http/errors';
import { actorEmail, EVERY_MERCHANT, type DashboardActor, type MerchantScope } from '../identity/context';
import { isEmptyBody } from '../http/validate';
import { findCharge, findChargeByIdUnscoped, type ChargeRow } from '../storage/charges';
import { findPaymentMethod } from '../storage/payment-methods';
import { FAILURE_TYPES, WORKFLOWS, applicationFailureOf, priorityOf, refundMemo, refundWorkflowId, type RefundRequester } from '../../workflows/contract';
import { startWorkflow } from '../temporal/workflows';
import { TEMPORAL_REACH_MS, unreachable, withinReach } from '../temporal/deadlines';
import { loadPresentedCharge } from './load';
import { REFUND_CAPABLE_PROCESSORS } from '../domain/settings';
import { refundRefusal, type RefundRefusal } from './refund-rules';

const REFUND_CAPABLE_TEXT = [...REFUND_CAPABLE_PROCESSORS].join(' and ');

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

/**
 * A refusal by the refund rules. The public endpoint answers the contract's bodies exactly
 * (`{error}`); the admin API's (`operatorHint`) add the hint the operator spec asks of its errors.
 */
function refusalError(chargeId: string, refusal: RefundRefusal, operatorHint: boolean): ApiError {
  if (refusal.type === FAILURE_TYPES.chargeNotSucceeded) return unableToRefund(chargeId, 'is not in status succeeded');
  if (!operatorHint) return new ApiError('refund', refusal.message);
  const hint =
    refusal.type === FAILURE_TYPES.refundUnsupported
      ? `Charge ${chargeId} cannot be refunded: refunds are possible for card deposits through ${REFUND_CAPABLE_TEXT} only; bank and crypto deposits have no refund path.`
      : `Charge ${chargeId} is a payout (debit); only deposits (credit) can be refunded.`;
  return new ApiError('refund', refusal.message, hint);
}

/** The processor declined the refund: the contract's `{error, responsetext}`, and for the admin API a hint. */
function refundDeclined(chargeId: string, reason: string, operatorHint: boolean): ApiError {
  const hint = operatorHint ? `The processor declined the refund of charge ${chargeId}; responsetext gives its reason.` : undefined;
  return new ApiError('refund', 'Refund failed', hint, { responsetext: reason });
}

/** The memo field naming the request (its Idempotency-Key, hashed) that started a refund workflow. */
const REQUEST_REF_MEMO = 'idempotency_ref';

/**
 * Who asks for a refund: the public API (the key's merchant; `requestRef`, derived from the
 * request's Idempotency-Key, lets the same request sent again after its answer was lost be
 * answered by the refund it started instead of as a second refund), a processor's notice or the
 * sandbox simulator, or a person of either dashboard (`actor`, acting within `scope`).
 */
export type RefundCaller =
  | { source: 'api'; merchantId: string; requestRef?: string }
  | { source: 'processor'; merchantId?: string }
  | { source: 'dashboard'; actor: DashboardActor; scope: MerchantScope };

/** The charge the caller may refund: the public API's and a merchant person's own merchant's, the operator's any. */
function chargeOf(deps: AppDeps, chargeId: string, caller: RefundCaller): Promise<ChargeRow | undefined> {
  const merchantId = caller.source === 'dashboard' ? (caller.scope === EVERY_MERCHANT ? undefined : caller.scope.merchantId) : caller.merchantId;
  return merchantId !== undefined ? findCharge(deps.db, merchantId, chargeId) : findChargeByIdUnscoped(deps.db, chargeId);
}

/**
 * Refunds a charge in full: the one entrance of the public API, both dashboards and the
 * processors. Guards answer at once: a charge the caller may not see is answered like a missing
 * one (the contract's 422 for the public API, not found for a dashboard, the same for the
 * merchant's people and the operator); the refund rules' refusals are the contract's errors. The
 * refund itself runs as a workflow keyed by the charge id, so a double submit cannot refund
 * twice; a dashboard refund's requester (the row's requested_by and the audit entry, with the
 * client address) is recorded in the refund's own transaction, by the workflow's activity.
 */
export async function refundCharge(deps: AppDeps, chargeId: string, caller: RefundCaller) {
  const { source } = caller;
  const operatorHint = source !== 'api';
  const requestRef = caller.source === 'api' ? caller.requestRef : undefined;
  const requester: RefundRequester | undefined = caller.source === 'dashboard' ? { email: actorEmail(caller.actor), actor: caller.actor } : undefined;
  const { db, temporal, config } = deps;
  const charge = await chargeOf(deps, chargeId, caller);
  if (!charge) {
    // Another merchant's charge is the same answer as a missing one.
    if (source === 'dashboard') throw new AdminNotFoundError('Charge not found.', `No charge ${chargeId}.`);
    throw unableToRefund(chargeId, 'does not exist for this business');
  }
  const pm = (await findPaymentMethod(db, charge.merchant_id, charge.payment_method_id))!;
  const refusal = refundRefusal(charge, pm.payment_type);
  if (refusal) {
    // The same request sent again after its answer was lost finds the charge it refunded.
    if (charge.status === 'refunded' && (await endOfOwnRefund(deps, charge.id, requestRef, operatorHint))) return loadPresentedCharge(db, charge.merchant_id, charge.id);
    throw refusalError(chargeId, refusal, operatorHint);
  }

  try {
    // Started and ended within the reach of Temporal, or 503; a refund whose worker comes later does nothing (acceptBy).
    const until = Date.now() + TEMPORAL_REACH_MS;
    await withinReach(temporal, until, async () => {
      const started = await startWorkflow(temporal, WORKFLOWS.refund, {
        taskQueue: config.taskQueue,
        workflowId: refundWorkflowId(charge.id),
        args: [{ chargeId: charge.id, source, ...(requester ? { requester } : {}), acceptBy: until }],
        typedSearchAttributes: merchantSearchAttributes(charge.merchant_id),
        priority: priorityOf('request', charge.merchant_id),
        // Only a refund the processor refused may be tried again; a done or running one may not.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        memo: { ...refundMemo({ merchantId: charge.merchant_id, checkoutId: charge.checkout_id, chargeId: charge.id }, source), ...(requestRef ? { [REQUEST_REF_MEMO]: requestRef } : {}) },
      });
      await started.result();
    });
  } catch (error) {
    const own = error instanceof WorkflowExecutionAlreadyStartedError && (await endOfOwnRefund(deps, charge.id, requestRef, operatorHint));
    if (!own) throw refundFailure(chargeId, error, operatorHint);
  }
  return loadPresentedCharge(db, charge.merchant_id, charge.id);
}

/**
 * When the request named by `requestRef` started the charge's refund workflow (it is being sent
 * again after its answer was lost, a 503), waits for that refund to end and answers true, or
 * throws its refusal as the first answer would have; false for any other request.
 */
async function endOfOwnRefund(deps: AppDeps, chargeId: string, requestRef: string | undefined, operatorHint: boolean): Promise<boolean> {
  if (!requestRef) return false;
  let description;
  try {
    description = await deps.temporal.workflow.getHandle(chargeId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
  if (description.memo?.[REQUEST_REF_MEMO] !== requestRef) return false;
  try {
    await withinReach(deps.temporal, Date.now() + TEMPORAL_REACH_MS, () => deps.temporal.workflow.getHandle(chargeId, description.runId).result());
  } catch (failure) {
    throw refundFailure(chargeId, failure, operatorHint);
  }
  return true;
}

function refundFailure(chargeId: string, error: unknown, operatorHint: boolean): unknown {
  if (error instanceof WorkflowExecutionAlreadyStartedError) return unableToRefund(chargeId, 'was already refunded or has a refund in progress');
  if (!(error instanceof WorkflowFailedError)) return error;
  const cause = applicationFailureOf(error);
  if (cause?.type === FAILURE_TYPES.requestAnswered) return unreachable();
  // Stopped before it ended (terminated by an operator, cancelled, timed out): nothing was decided,
  // and a refund sent again runs again (its claim and the processor's idempotency key keep it to one).
  if (!cause) return new ServiceUnavailableError('The refund did not finish.', `The refund of charge ${chargeId} was stopped before it ended; send the request again.`);
  if (cause.type === FAILURE_TYPES.refundDeclined) {
    return refundDeclined(chargeId, String(cause.details?.[0] ?? cause.message), operatorHint);
  }
  if (cause.type === FAILURE_TYPES.refundUnsupported || cause.type === FAILURE_TYPES.chargeNotRefundable || cause.type === FAILURE_TYPES.chargeNotSucceeded) {
    return refusalError(chargeId, { type: cause.type, message: cause.message }, operatorHint);
  }
  return error;
}
