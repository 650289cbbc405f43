import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { merchantSearchAttributes } from '../temporal/search-attributes';
import type { AppDeps } from '../app-deps';
import { AdminNotFoundError, ApiError, ServiceUnavailableError, ValidationError } from '../http/errors';
import { actorEmail, EVERY_MERCHANT, type DashboardActor, type MerchantScope } from '../identity/context';
import { isEmptyBody } from '../http/validate';
import { findCharge, findChargeByIdUnscoped, type ChargeRow } from '../storage/charges';
import { findPaymentMethod } from '../storage/payment-methods';
import { findRefundClaim } from '../storage/refunds';
import { FAILURE_TYPES, WORKFLOWS, applicationFailureOf, priorityOf, refundMemo, refundWorkflowId, type RefundRequester } from '../../workflows/contract';
import { startWorkflow } from '../temporal/workflows';
import { assertClaimedOnGivingUp, gaveUpOnTemporal, REQUEST_ANSWER_MS, TEMPORAL_REACH_MS, unreachable, withinReach } from '../temporal/deadlines';
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
  const startedAt = Date.now();
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

  // This send's fence: claimed with the refund before the processor is called, or answered by this request as it gives up.
  const fenceId = randomUUID();
  try {
    // Started and ended within the reach of Temporal, or given up (refundAfterGivingUp); a refund
    // whose worker comes later does nothing (acceptBy), nor one whose claim comes later (its fence).
    const until = Date.now() + TEMPORAL_REACH_MS;
    await withinReach(temporal, until, async () => {
      const started = await startWorkflow(temporal, WORKFLOWS.refund, {
        taskQueue: config.taskQueue,
        workflowId: refundWorkflowId(charge.id),
        args: [{ chargeId: charge.id, source, ...(requester ? { requester } : {}), acceptBy: until, fenceId }],
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
    if (!own) await refundAfterGivingUp(deps, charge, { fenceId, startedAt, operatorHint }, error);
  }
  return loadPresentedCharge(db, charge.merchant_id, charge.id);
}

/** The 503 of a refund its worker claimed before its request gave up, and not yet made by REQUEST_ANSWER_MS: it completes by itself. */
export const REFUND_UNDER_WAY = 'The refund is under way.';

/** How often a request whose refund was claimed looks for its outcome. */
const REFUND_OUTCOME_POLL_MS = 100;

/**
 * A refund whose request gives up on Temporal (its reach passed, or the workflow refused it as
 * starting late) writes its fence as answered, unless the refund's claim took it first, before the
 * processor call. Answered: the refund is never made (the claim refuses it), and the 503 says so.
 * Claimed: the refund goes on to its end (the processor call is idempotent by charge id), so the
 * charge is awaited until REQUEST_ANSWER_MS and answered as the 200 would be, or with a 503 that
 * says the refund is under way. Any other failure is thrown as refundFailure maps it.
 */
async function refundAfterGivingUp(deps: AppDeps, charge: ChargeRow, send: { fenceId: string; startedAt: number; operatorHint: boolean }, error: unknown): Promise<void> {
  if (!gaveUpOnTemporal(error)) throw refundFailure(charge.id, error, send.operatorHint);
  const answerBy = send.startedAt + REQUEST_ANSWER_MS;
  await assertClaimedOnGivingUp(deps.db, send.fenceId, answerBy, `The refund of charge ${charge.id} may still be made: send the same request again after Retry-After seconds for its outcome.`);
  for (;;) {
    const outcome = await claimedRefundOutcome(deps, charge);
    if (outcome === 'refunded') return;
    if (outcome === 'withdrawn') return endOfWithdrawnRefund(deps, charge.id, answerBy, send.operatorHint);
    if (Date.now() + REFUND_OUTCOME_POLL_MS >= answerBy) break;
    await new Promise((resolve) => setTimeout(resolve, REFUND_OUTCOME_POLL_MS));
  }
  // A dashboard's request has no Idempotency-Key: sent again, it would be refused as a second refund.
  const outcome = send.operatorHint ? 'the charge shows refunded once it is' : 'send the same request again after Retry-After seconds for its outcome';
  throw new ServiceUnavailableError(REFUND_UNDER_WAY, `The refund of charge ${charge.id} has begun and will complete (the processor is asked once, by the charge id): ${outcome}.`, 1);
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

/** Where a claimed refund stands: made, withdrawn (the processor declined it: the claim is gone, the charge unrefunded), or still at the processor. */
async function claimedRefundOutcome(deps: AppDeps, charge: ChargeRow): Promise<'refunded' | 'withdrawn' | 'pending'> {
  const [now, claim] = await Promise.all([findCharge(deps.db, charge.merchant_id, charge.id), findRefundClaim(deps.db, charge.merchant_id, charge.id)]).catch(() => []);
  if (now?.status === 'refunded') return 'refunded';
  return now && !claim ? 'withdrawn' : 'pending';
}

/** A claimed refund the processor declined: its workflow's failure, as the first answer would have been, or a 503 (nothing was refunded) while Temporal does not say. */
async function endOfWithdrawnRefund(deps: AppDeps, chargeId: string, answerBy: number, operatorHint: boolean): Promise<never> {
  try {
    await withinReach(deps.temporal, answerBy, () => deps.temporal.workflow.getHandle(refundWorkflowId(chargeId)).result());
  } catch (failure) {
    const mapped = refundFailure(chargeId, failure, operatorHint);
    throw gaveUpOnTemporal(mapped) ? unreachable() : mapped;
  }
  throw unreachable();
}
